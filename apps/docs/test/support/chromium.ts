// Debian's Chromium, launched the one way the workspace's browser tests share (@finetune-studio/testing):
// missing, it fails with one line naming the Debian package and the command that installs it.
export { launchChromium } from "@finetune-studio/testing";
