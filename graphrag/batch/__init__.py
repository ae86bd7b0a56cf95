"""Batch jobs: many contexts, prompts and answers into one JSON Lines file, resumable."""
