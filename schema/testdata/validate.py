"""Validate JSON documents against a JSON Schema with python's jsonschema.

Usage: python3 validate.py SCHEMA.json DOC.json...

Prints one JSON object a line for each document: "errors", where each
error that iter_errors yields at the top is, and "best", where
jsonschema.exceptions.best_match's error is (both JSON pointers; none when
the document is valid), with "message", best_match's message. Exits 3 when
jsonschema has no draft 2020-12 validator.
"""

import json
import sys

try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
except ImportError as e:
    print("no jsonschema with draft 2020-12: %s" % e, file=sys.stderr)
    sys.exit(3)


def pointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def main(args):
    with open(args[0]) as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for name in args[1:]:
        with open(name) as f:
            doc = json.load(f)
        errors = list(validator.iter_errors(doc))
        best = best_match(errors)
        print(json.dumps({
            "file": name,
            "errors": sorted(set(pointer(e.absolute_path) for e in errors)),
            "best": None if best is None else pointer(best.absolute_path),
            "message": None if best is None else best.message,
        }))


if __name__ == "__main__":
    main(sys.argv[1:])
