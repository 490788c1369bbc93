import { describe, expect, it } from "vitest";
import { canonicalJson, hashOf, sha256 } from "../src/index.ts";

describe("canonical JSON", () => {
  it("does not depend on key order", () => {
    const a = { b: 1, a: { y: [1, { q: 2, p: 1 }], x: "s" } };
    const b = { a: { x: "s", y: [1, { p: 1, q: 2 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(hashOf(a)).toBe(hashOf(b));
  });

  it("does not depend on whitespace in the source JSON", () => {
    const spaced = JSON.parse('{ "a" : [ 1 , 2 ] ,\n "b" : "c" }');
    expect(hashOf(spaced)).toBe(hashOf({ b: "c", a: [1, 2] }));
  });

  it("distinguishes different values and array order", () => {
    expect(hashOf({ a: [1, 2] })).not.toBe(hashOf({ a: [2, 1] }));
    expect(hashOf({ a: 1 })).not.toBe(hashOf({ a: "1" }));
  });

  it("drops undefined members as JSON does", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it("refuses values JSON cannot represent", () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/finite number/);
  });

  it("prefixes hashes with sha256:", () => {
    expect(sha256("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashOf({})).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
