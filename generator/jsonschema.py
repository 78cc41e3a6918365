"""The entry JSON Schema for editors: generated from the Pydantic model, vocabularies filled in as enums."""

from __future__ import annotations

import json

from generator.schema import Entry
from generator.vocabulary import Vocabulary

SCHEMA_ID = "https://trainwreck-ml.github.io/trainwreck/api/entry.schema.json"


def entry_json_schema(vocabulary: Vocabulary) -> dict:
    schema = Entry.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    properties = schema["properties"]
    properties["category"]["enum"] = sorted(vocabulary.terms("categories"))
    properties["severity"]["enum"] = list(vocabulary.terms("severities"))
    properties["tags"]["items"]["enum"] = sorted(vocabulary.terms("tags"))
    affected = schema["$defs"]["Affected"]["properties"]
    affected["systems"]["items"]["enum"] = sorted(vocabulary.terms("systems"))
    affected["versions"]["propertyNames"] = {"enum": sorted(vocabulary.terms("systems"))}
    return schema


def schema_text(vocabulary: Vocabulary) -> str:
    return json.dumps(entry_json_schema(vocabulary), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
