"""Retrieval quality on a question set, against graph-free baselines, and its reports."""
