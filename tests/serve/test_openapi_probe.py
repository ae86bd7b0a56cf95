"""schemathesis against the app's own OpenAPI document (issue 13, "keep probing").

Every operation gets generated requests, valid and not; no answer may be a 500, and every
answer must match what the document says (status documented, body in the declared shape,
content type). Bounded: ``PROBE_EXAMPLES`` cases per operation (default 12), in process.

Left out: ``positive_data_acceptance``, which expects every schema-valid body to be
accepted. Some refusals are about meaning, not shape: a model name llm does not know, a
date such as 2024-02-30, a note that is not there (404).
"""

from __future__ import annotations

import os
import shutil

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from graphrag import VaultRAG
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.serve.app import create_app
from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT

EXAMPLES = int(os.environ.get("PROBE_EXAMPLES", "12"))


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> schemathesis.schemas.BaseSchema:
    vault = tmp_path_factory.mktemp("probe") / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    rag = VaultRAG.open(vault, settings=load_settings(env={}), embedder=HashEmbedder())
    # schemathesis's ASGI client sends Host: testserver.
    server = ServerSettings(watch=False, preload_model=False, allowed_hosts=("testserver",))
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(rag, server))


def test_every_answer_matches_the_document(api_schema: schemathesis.schemas.BaseSchema) -> None:
    failures: dict[str, str] = {}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 10  # every route is in the document
    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def probe(case: schemathesis.Case) -> None:
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        try:
            probe()
        except Exception as exc:  # one operation's failure must not hide the others'
            failures[operation.label] = str(exc)[:2000]
    assert failures == {}, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
