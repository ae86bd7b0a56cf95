export * from "./client";
export * from "./errors";
export * from "./sse";
export * from "./transport";
export * from "./types";
export * from "./wikilinks";
export * from "./dom";
