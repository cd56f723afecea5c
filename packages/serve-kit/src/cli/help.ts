// Help texts. Kept as plain text so `--help` needs nothing but this file.

export const MAIN_HELP = `studio-serve: serve a model fine-tuned in Finetune Studio with vLLM, on your own machine.

Usage:
  studio-serve command full <model> [options] [-- vllm options]      print the vllm serve command
  studio-serve command lora <base> --adapter name=path ... [options]
  studio-serve launch full|lora ... (same arguments)                  start vLLM, wait until it answers
  studio-serve doctor [--host H] [--port P] [--json]                  check the prerequisites
  studio-serve nginx --upstream host:port ... --listen P              print a load-balancer config

Every command takes --help. Secrets never go on the command line: --api-key-env names the
environment variable that holds the key, and vLLM receives it as VLLM_API_KEY.

Exit codes: 0 ok, 1 failure (a failed check, a taken port), 2 bad arguments, 3 smoke completion
failed, 124 not ready before --timeout, 127 vllm not on PATH; launch otherwise exits with vLLM's code.
`;

const SERVE_FLAGS = `Where it listens:
  --host H                  listen address (default 127.0.0.1: only this machine; 0.0.0.0 for all)
  --port P                  listen port (default 8000)
  --api-key-env NAME        require the key held in the environment variable NAME (sent to vLLM
                            as VLLM_API_KEY; clients send "Authorization: Bearer <key>")

Full model:
  --served-model-name N     the name clients send in "model" (default: the model path itself)

LoRA (base model plus adapters):
  --adapter name=path       an adapter; repeat for several. Clients send the name in "model"
  --max-lora-rank R         largest adapter rank: 1, 8, 16, 32, 64, 128, 256, 320 or 512 (vLLM: 16)
  --max-loras K             adapters in one batch (vLLM: 1)

Anything after -- goes to vllm serve as is, e.g. -- --max-model-len 8192 --dtype bfloat16`;

export const COMMAND_HELP = `studio-serve command: print the command that serves a fine-tuned model with vLLM.

Usage:
  studio-serve command full <model> [options] [-- vllm options]
  studio-serve command lora <base> --adapter name=path [--adapter ...] [options] [-- vllm options]

${SERVE_FLAGS}

Output:
  --json                    print the builder's whole output: argv, env, shell, client, warnings
                            (a key appears as "\${NAME}", never its value)
  --docker                  print a docker run command for the official vllm/vllm-openai image
  --image I                 the image for --docker (default vllm/vllm-openai:latest; pin a tag)
  --hf-cache DIR            host directory mounted as the Hugging Face cache for --docker
                            (default $HF_HOME, else ~/.cache/huggingface)

Examples:
  studio-serve command full acme/support-8b --served-model-name support
  studio-serve command lora meta-llama/Llama-3.1-8B-Instruct --adapter support=/models/support-lora
`;

export const LAUNCH_HELP = `studio-serve launch: start vLLM, wait until it serves the model, check it with a one-token
completion, then keep running until vLLM stops. Ctrl-C (or SIGTERM) stops vLLM; the exit code is vLLM's.

Usage:
  studio-serve launch full <model> [options] [-- vllm options]
  studio-serve launch lora <base> --adapter name=path [--adapter ...] [options] [-- vllm options]

${SERVE_FLAGS}

Waiting:
  --timeout S               give up (and stop vLLM) when it is not ready after S seconds
                            (default 1800: downloading and loading weights can take long)

vllm must be on PATH (pip install vllm). Without --api-key-env, a VLLM_API_KEY already in the
environment is used, since vLLM would read it anyway.
`;

export const DOCTOR_HELP = `studio-serve doctor: check what serving a model with vLLM needs, and say how to fix what is missing.

Usage:
  studio-serve doctor [--host H] [--port P] [--json]

Checks Python (3.8 or newer; current vLLM releases need 3.10+), vllm on PATH, an NVIDIA GPU and its
free memory (nvidia-smi), a hub login for private repositories (HF_TOKEN or the hub CLI's token),
and that the port is free. Exits 1 when a required check fails; warnings do not fail.
`;

export const NGINX_HELP = `studio-serve nginx: print an nginx config that balances requests over several vLLM instances.

Usage:
  studio-serve nginx --upstream host:port [--upstream host:port ...] --listen P [options]

Options:
  --upstream host:port      a vLLM instance ([addr]:port for IPv6); repeat for each
  --listen P                the port nginx listens on
  --host H                  the address nginx listens on (default 127.0.0.1)
  --read-timeout S          seconds to wait between reads from an instance (default 600)

The config goes in nginx's http block, e.g. /etc/nginx/conf.d/studio-serve.conf. It sends each request
to the instance with the fewest open ones and passes streamed responses on unbuffered.

Example:
  studio-serve nginx --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 --listen 8000
`;

export function helpFor(topic: string | undefined): string {
  const first = topic?.split(" ")[0];
  if (first === "command") return COMMAND_HELP;
  if (first === "launch") return LAUNCH_HELP;
  if (first === "doctor") return DOCTOR_HELP;
  if (first === "nginx") return NGINX_HELP;
  return MAIN_HELP;
}
