const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line progress indicator: a spinner redrawn in place on a terminal, plain lines elsewhere. */
export function progressLine(stream: NodeJS.WriteStream) {
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  let text = "";
  const draw = () => stream.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${text}`);
  return {
    update(next: string) {
      text = next;
      if (!stream.isTTY) {
        stream.write(`  … ${text}\n`);
        return;
      }
      draw();
      timer ??= setInterval(draw, 80);
    },
    done(final: string) {
      clearInterval(timer);
      stream.write(stream.isTTY ? `\r\x1b[2K✔ ${final}\n` : `  ✔ ${final}\n`);
    },
  };
}
