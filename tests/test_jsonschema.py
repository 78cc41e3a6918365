"""The exported entry schema must tell an editor what `trainwreck validate` will say of a URL.

Editors check the schema's patterns as JavaScript regular expressions with the `u` flag, which
refuses some escapes Python accepts, so the patterns are run in Node here, not only in `re`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.jsonschema import entry_json_schema
from generator.schema import Reference
from generator.vocabulary import load_vocabulary

REPO = Path(__file__).resolve().parent.parent

GOOD = [
    "https://github.com/vllm-project/vllm/blob/v0.6.0/vllm/config.py",
    "https://github.com/vllm-project/vllm/blob/0123456789abcdef0123456789abcdef01234567/setup.py",
    "https://github.com/owner/repo/tree/mainline/src",
    "https://raw.githubusercontent.com/owner/repo/v1.2/README.md",
    "https://docs.nvidia.com/deploy/xid-errors/index.html#topic_4",
]
BAD = [
    "https://github.com/vllm-project/vllm/blob/main/vllm/config.py",
    "https://github.com/owner/repo/tree/master",
    "https://raw.githubusercontent.com/owner/repo/refs/heads/main/README.md",
    "javascript:alert(1)",
    "https://example.org/a b",
    'https://example.org/"x"',
]


def url_schema() -> dict:
    schema = entry_json_schema(load_vocabulary(REPO / "entries" / "_vocab", REPO))
    return schema["$defs"]["Reference"]["properties"]["url"]


def accepted_by_validator(url: str) -> bool:
    try:
        Reference(title="t", url=url, kind="docs")
    except ValueError:
        return False
    return True


def accepted_by_javascript(urls: list[str]) -> list[bool]:
    node = shutil.which("node")
    assert node, "node is required to check the schema's patterns as JavaScript reads them"
    schema = url_schema()
    script = (
        "const [allow, deny, urls] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const a = new RegExp(allow, 'u'), d = new RegExp(deny, 'u');"
        "console.log(JSON.stringify(urls.map((u) => a.test(u) && !d.test(u))));"
    )
    stdin = json.dumps([schema["pattern"], schema["not"]["pattern"], urls])
    result = subprocess.run([node, "-e", script], input=stdin, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(("url", "expected"), [(url, True) for url in GOOD] + [(url, False) for url in BAD])
def test_the_validator_reads_urls_as_the_cases_say(url, expected):
    assert accepted_by_validator(url) is expected


def test_the_schema_patterns_agree_with_the_validator_in_javascript():
    urls = GOOD + BAD
    assert accepted_by_javascript(urls) == [True] * len(GOOD) + [False] * len(BAD)
