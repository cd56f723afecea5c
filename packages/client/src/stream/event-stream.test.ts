// The text/event-stream reader on its own: the spec's line ends, fields and dispatch, fed whole, split at
// every position, and one character at a time, and its cap on one event's size.
import { describe, expect, it } from "vitest";
import { eventStreamReader } from "./event-stream.js";

class TooLarge extends Error {}

/** The data of every event dispatched while `pieces` are fed in order. */
function read(pieces: readonly string[], maxEventSize = 1_000): string[] {
  const events: string[] = [];
  const feed = eventStreamReader(
    maxEventSize,
    (data) => events.push(data),
    () => new TooLarge(),
  );
  for (const piece of pieces) feed(piece);
  return events;
}

/** A reader that drops its events: for the cap, which throws while feeding. */
const feedDiscarding = (maxEventSize: number) =>
  eventStreamReader(
    maxEventSize,
    () => {},
    () => new TooLarge(),
  );

/** Every way to cut `text` in two, plus one character per piece. */
function splits(text: string): string[][] {
  const cuts = Array.from({ length: text.length + 1 }, (_, at) => [text.slice(0, at), text.slice(at)]);
  return [...cuts, [...text]];
}

describe("eventStreamReader", () => {
  it.each([
    ["LF line ends", "data: a\n\ndata: b\n\n", ["a", "b"]],
    ["CRLF line ends", "data: a\r\n\r\ndata: b\r\n\r\n", ["a", "b"]],
    ["lone CR line ends", "data: a\r\rdata: b\r\r", ["a", "b"]],
    ["line ends mixed in one stream", "data: a\r\n\rdata: b\n\r\ndata: c\r\n", ["a", "b"]],
    ["several data lines, joined by LF", "data: a\ndata: b\r\ndata: c\r\n", []],
    ["several data lines, then the empty line", "data: a\ndata: b\r\ndata: c\r\n\n", ["a\nb\nc"]],
    ["one space after the colon dropped, not two", "data:  a\n\ndata:b\n\n", [" a", "b"]],
    ["an empty value", "data:\n\ndata: \n\ndata\n\n", ["", "", ""]],
    ["an empty data line among others", "data: a\ndata\ndata: b\n\n", ["a\n\nb"]],
    ["a value holding colons and spaces", 'data: {"a": "b: c"} \n\n', ['{"a": "b: c"} ']],
    ["comments ignored", ": keep-alive\n\n:ping\ndata: a\n: inside\n\n", ["a"]],
    ["other fields ignored", "event: x\nid: 7\nretry: 10\nfoo: bar\ndata: a\n\n", ["a"]],
    ["field names that only start like data", "database: x\ndatum: y\nDATA: z\n data: w\n\n", []],
    ["empty lines without data dispatch nothing", "\n\n\r\n\r\r", []],
    ["an event without its empty line is not dispatched", "data: a\n\ndata: b\n", ["a"]],
    ["a BOM at the start ignored", "\uFEFFdata: a\n\n", ["a"]],
    ["a BOM later kept: it is then part of a field name", "data: a\n\n\uFEFFdata: b\n\n", ["a"]],
    ["non-ASCII text kept", "data: Déjà vu 🔐\n\n", ["Déjà vu 🔐"]],
  ])("%s", (_, text, want) => {
    for (const pieces of splits(text)) expect(read(pieces), JSON.stringify(pieces)).toEqual(want);
  });

  it("a CR ending one piece and an LF opening the next are one line end", () => {
    expect(read(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual(["a\nb"]);
    // Not an LF after it: the CR ended the line alone.
    expect(read(["data: a\r", "\r", "data: b\r", "", "\r"])).toEqual(["a", "b"]);
  });

  it("empty pieces change nothing, even between a CR and its LF", () => {
    expect(read(["", "data: a\r", "", "", "\n\r", "", "\n", ""])).toEqual(["a"]);
  });

  it("a BOM is dropped only at the very start, even when the first pieces are empty", () => {
    expect(read(["", "\uFEFF", "data: a\n\n"])).toEqual(["a"]);
    expect(read(["\uFEFF", "\uFEFFdata: a\n\n"])).toEqual([]);
  });

  it("splitting the same stream at any positions yields the same events (every cut, every pair of cuts)", () => {
    const text =
      '\uFEFF: hello\r\ndata: {"a":1}\r\n\r\ndata:x\rdata: y\r\revent: e\nid: 1\ndata: "🔐"\n\n' +
      "data\n\ndata: [DONE]\r\n\r\n";
    const want = ['{"a":1}', "x\ny", '"🔐"', "", "[DONE]"];
    for (let first = 0; first <= text.length; first++) {
      for (let second = first; second <= text.length; second++) {
        const pieces = [text.slice(0, first), text.slice(first, second), text.slice(second)];
        expect(read(pieces), JSON.stringify(pieces)).toEqual(want);
      }
    }
  });

  describe("the cap on one event's characters", () => {
    it("holds an event's data up to the cap", () => {
      expect(read([`data: ${"x".repeat(10)}\n\n`], 10)).toEqual(["x".repeat(10)]);
      // Joined lines count with their LF: 4 + 1 + 5 = 10.
      expect(read(["data: abcd\ndata: efghi\n\n"], 10)).toEqual(["abcd\nefghi"]);
    });

    it("refuses data past the cap, whole in one piece", () => {
      expect(() => read([`data: ${"x".repeat(11)}\n\n`], 10)).toThrow(TooLarge);
      expect(() => read(["data: abcde\ndata: efghi\n\n"], 10)).toThrow(TooLarge);
    });

    it("counts a line still arriving: an endless line is refused before its end", () => {
      const feed = feedDiscarding(10);
      feed("data: 1");
      feed("23");
      expect(() => feed("xx")).toThrow(TooLarge);
      // A piece that ends one line and starts a line too long.
      expect(() => read(["data: 1\ndata: 23456789"], 10)).toThrow(TooLarge);
    });

    it("counts the data held with the line arriving after it", () => {
      const feed = feedDiscarding(10);
      feed("data: 123456\n");
      expect(() => feed("data")).not.toThrow();
      expect(() => feed(": x")).toThrow(TooLarge);
    });

    it("is per event: many events under the cap pass, however much they add up to", () => {
      const events = Array.from({ length: 50 }, (_, i) => `${i}`.padStart(10, "0"));
      expect(read([events.map((data) => `data: ${data}\n\n`).join("")], 10)).toEqual(events);
    });
  });
});
