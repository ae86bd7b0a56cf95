"""/docs and /redoc work with no network: every file they load is served by the app itself."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from graphrag import VaultRAG
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.serve.app import create_app
from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT

QUIET = ServerSettings(watch=False, preload_model=False)

# What each page must load, by the URL's ending -> a fragment of the Content-Type.
CONTENT_TYPES = {
    ".js": "javascript",
    ".css": "text/css",
    ".png": "image/png",
    ".json": "application/json",
}


@pytest.fixture(scope="module")
def shared_rag(tmp_path_factory: pytest.TempPathFactory) -> VaultRAG:
    vault = tmp_path_factory.mktemp("server_docs") / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    return VaultRAG.open(vault, settings=load_settings(env={}), embedder=HashEmbedder())


@pytest.fixture
def client(shared_rag: VaultRAG) -> Iterator[TestClient]:
    with TestClient(create_app(shared_rag, QUIET), base_url="http://localhost") as c:
        yield c


def loaded_urls(html: str) -> list[str]:
    """Every URL the page makes the browser fetch: src=, href=, and the spec's url / spec-url."""
    found = re.findall(r"""\b(?:src|href|spec-url)\s*=\s*["']([^"']+)["']""", html)
    found += re.findall(r"""\burl\s*:\s*["']([^"']+)["']""", html)
    return found


@pytest.mark.parametrize(
    ("page", "global_name", "assets"),
    [
        ("/docs", "SwaggerUIBundle", {".js", ".css", ".png", ".json"}),
        ("/redoc", "Redoc", {".js", ".png", ".json"}),
    ],
)
def test_docs_pages_load_only_files_the_app_serves(
    client: TestClient, page: str, global_name: str, assets: set[str]
) -> None:
    r = client.get(page)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    html = r.text
    assert "cdn.jsdelivr.net" not in html
    assert "fonts.googleapis.com" not in html
    assert not re.search(r"(?i)(https?:)?//[a-z0-9]", html), "the page names another host"

    urls = loaded_urls(html)
    assert {Path(u).suffix for u in urls} == assets, urls
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), url
        got = client.get(url)
        assert got.status_code == 200, url
        assert CONTENT_TYPES[Path(url).suffix] in got.headers["content-type"], url
        if url.endswith(".js"):
            assert global_name in got.text and len(got.content) > 100_000, url
        elif url.endswith(".css"):
            assert ".swagger-ui" in got.text, url
        elif url.endswith(".png"):
            assert got.content.startswith(b"\x89PNG"), url


def test_swagger_ui_renders_openapi_3_1(client: TestClient) -> None:
    """FastAPI writes OpenAPI 3.1, which Swagger UI renders from version 5 on."""
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")
    script = client.get("/docs/static/swagger-ui-bundle.js").text
    version = re.search(r'PACKAGE_VERSION:"(\d+)\.', script)
    assert version is not None and int(version.group(1)) >= 5


def test_openapi_still_served_and_docs_not_in_it(client: TestClient) -> None:
    r = client.get("/openapi.json")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    paths = r.json()["paths"]
    assert "/focus" in paths and "/health" in paths
    assert not [p for p in paths if p.startswith(("/docs", "/redoc"))]


def test_missing_static_file_is_a_json_404(client: TestClient) -> None:
    for path in ("/docs/static/nope.js", "/docs/static/../core.py", "/docs/static/%2e%2e/core.py"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert r.json()["error"] == "not_found"


def test_docs_need_the_token_like_openapi(shared_rag: VaultRAG) -> None:
    settings = ServerSettings(watch=False, preload_model=False, token="s3cret-token")
    client = TestClient(create_app(shared_rag, settings), base_url="http://localhost")
    paths = (
        "/docs",
        "/redoc",
        "/docs/static/swagger-ui-bundle.js",
        "/docs/static/swagger-ui.css",
        "/openapi.json",
    )
    for path in paths:
        r = client.get(path)
        assert r.status_code == 401, path
        assert r.json()["error"] == "unauthorized"
    right = {"Authorization": "Bearer s3cret-token"}
    for path in paths:
        assert client.get(path, headers=right).status_code == 200, path
