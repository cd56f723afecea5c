// The part of `text/event-stream` (WHATWG HTML, "Server-sent events") a chat stream uses. Lines end at CRLF,
// LF or a lone CR; a `data` field's value (one space after the colon dropped) is the event's data, several
// joined by "\n"; an empty line dispatches the event. Comments, `event`, `id`, `retry` and unknown fields are
// skipped: a chat stream has no use for them. Read as text arrives, without re-scanning: each line end is
// found once, by indexOf.

const LF = 10;
const SPACE = 32;
const COLON = 58;

/**
 * A reader of decoded text: each call takes the next piece and hands every event it completes to `onData`.
 * An event whose data, with its line still arriving, passes `maxEventSize` characters throws `tooLarge()`.
 */
export function eventStreamReader(
  maxEventSize: number,
  onData: (data: string) => void,
  tooLarge: () => Error,
): (text: string) => void {
  /** The start of a line still arriving. */
  let partial = "";
  /** The event's data so far; undefined until it has a data field. */
  let data: string | undefined;
  /** The last piece ended with a CR, so an LF opening the next one ends the same line. */
  let afterCR = false;
  let first = true;
  const holdWithinCap = () => {
    if (partial.length + (data?.length ?? 0) > maxEventSize) throw tooLarge();
  };
  return (piece) => {
    // TextDecoder drops a BOM already; dropped here too, for text fed to the reader directly.
    if (first && piece !== "") {
      first = false;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    // A line still arriving is searched once: its pieces are only added up until one holds a line end.
    let lf = piece.indexOf("\n");
    let cr = piece.indexOf("\r");
    if (lf === -1 && cr === -1) {
      partial += piece;
      holdWithinCap();
      return;
    }
    const text = partial + piece;
    // The next LF and CR from `at`, found again only once passed: a text without CR is searched for one once.
    if (lf !== -1) lf += partial.length;
    if (cr !== -1) cr += partial.length;
    let at = afterCR && lf === 0 ? 1 : 0;
    afterCR = false;
    for (;;) {
      if (lf !== -1 && lf < at) lf = text.indexOf("\n", at);
      if (cr !== -1 && cr < at) cr = text.indexOf("\r", at);
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      if (end === -1) break;
      if (end === at) {
        if (data !== undefined) onData(data);
        data = undefined;
      } else if (text.startsWith("data", at) && (end === at + 4 || text.charCodeAt(at + 4) === COLON)) {
        // After "data:" one space is dropped; a bare "data" line is an empty value (from past its end).
        const value = text.slice(text.charCodeAt(at + 5) === SPACE ? at + 6 : at + 5, end);
        data = data === undefined ? value : `${data}\n${value}`;
        if (data.length > maxEventSize) throw tooLarge();
      }
      at = end + 1;
      if (end === cr) {
        if (at === text.length) afterCR = true;
        else if (text.charCodeAt(at) === LF) at++;
      }
    }
    partial = text.slice(at);
    holdWithinCap();
  };
}
