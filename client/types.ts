// Shapes of the server's JSON (README "HTTP server", /tmp contract for /ask, /models, /tags,
// /folders). Only the fields the page and the plugin read are typed; the server may send more.

export interface UriAndTitle {
  uri: string;
  title: string;
}

export interface Progress {
  phase: string;
  done: number;
  total: number;
}

export interface Status {
  vault: string | null;
  index_dir: string;
  generation: string;
  model: string;
  updated: number | null;
  counts: Record<string, number>;
  watching: boolean;
  updating: boolean;
  progress?: Progress | null;
  last_update?: unknown;
}

export interface Health {
  status: string;
  version: string;
}

export interface OutboundLink extends UriAndTitle {
  predicate?: string;
}

export interface FocusNote extends UriAndTitle {
  details: string;
  createdAt?: string | null;
  parentUriAndTitle?: UriAndTitle | null;
  contextualPath: UriAndTitle[];
  children: UriAndTitle[];
  priorSiblings: UriAndTitle[];
  youngerSiblings: UriAndTitle[];
  inboundReferences: UriAndTitle[];
  outboundLinks: OutboundLink[];
  tags?: string[];
}

export interface RelatedNote extends UriAndTitle {
  details: string;
  parentUriAndTitle?: UriAndTitle | null;
  createdAt?: string | null;
  relationToFocusNote: string;
  predicate?: string;
  /** The server's sentence for the relation ("Spring Box is a child of Shepherd's Hut"). */
  relationSentence?: string;
}

export interface FocusResult {
  focusNote: FocusNote;
  relatedNotes: RelatedNote[];
}

export interface FocusOptions {
  budget?: number;
  seed?: number;
  exclude?: string[];
  /** Add each related note's relation sentence (default true). */
  sentences?: boolean;
}

export interface Filters {
  folder?: string | string[];
  tag?: string | string[];
  property?: string | string[];
  created?: string;
  modified?: string;
}

export type SearchMode = "semantic" | "lexical" | "hybrid" | "graph" | "hierarchical";

export interface SearchHit extends UriAndTitle {
  score: number;
  heading?: string;
  snippet?: string;
}

export interface SearchResult {
  query: string;
  mode: SearchMode;
  results: SearchHit[];
}

export interface SearchOptions {
  mode?: SearchMode;
  top_k?: number;
  filters?: Filters;
}

export interface Neighbour extends UriAndTitle {
  relation: string;
}

export interface Note extends UriAndTitle {
  path: string;
  aliases: string[];
  tags: string[];
  properties: Record<string, unknown>;
  createdAt?: string | null;
  modifiedAt?: string | null;
  parentUriAndTitle?: UriAndTitle | null;
  neighbours: Neighbour[];
  details: string;
}

export interface ModelInfo {
  id: string;
  name: string;
  aliases: string[];
}

export interface Models {
  models: ModelInfo[];
  default: string | null;
}

export interface TagNode {
  tag: string;
  name: string;
  count: number;
  children: TagNode[];
}

export interface Tags {
  tags: TagNode[];
}

export interface Folder {
  path: string;
  notes: number;
}

export interface Folders {
  folders: Folder[];
}

export interface Turn {
  question: string;
  answer: string;
}

export interface AskRequest {
  question: string;
  budget?: number;
  model?: string;
  options?: Record<string, string | number | boolean>;
  filters?: Filters;
  /** Ask about this note (focus mode around it) instead of the whole vault. */
  note?: string;
  history?: Turn[];
  seed?: number;
}

export interface Source extends UriAndTitle {
  relation: string;
  cited?: boolean;
}

export interface AskContext {
  mode: "query" | "focus";
  question: string;
  model: string;
  sources: Source[];
  tokens: { budget: number; used: number };
}

export interface AskDone {
  answer: string;
  cited: string[];
  sources: Source[];
  usage: { input: number | null; output: number | null } | null;
  seconds: { retrieval: number; model: number };
  nothingFound: boolean;
}

export type AskEvent =
  | { type: "context"; data: AskContext }
  | { type: "delta"; data: { text: string } }
  | { type: "done"; data: AskDone };

export interface IndexStats {
  [key: string]: unknown;
}

export interface ErrorBody {
  error: string;
  detail: string;
  [key: string]: unknown;
}
