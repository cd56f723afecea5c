export { getFreePort } from "./ports.js";
export { type ContractName, contracts, type PrismMock, startPrism } from "./prism.js";
export { type ManagedProcess, startProcess } from "./process.js";
export { waitForHttp, waitForOutput } from "./wait.js";
