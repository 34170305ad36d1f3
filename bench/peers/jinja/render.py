"""Render seed 003's single-gpu-task template with its filled values, as
seed 003's web service does: the template and a JSON object of values in,
the manifests out. Run it with Debian's /usr/bin/python3 and python3-jinja2:

    /usr/bin/python3 render.py single-gpu-task.yaml.j2 values.json
"""
import json
import os
import sys

import jinja2


def main():
    template_path, values_path = sys.argv[1], sys.argv[2]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.dirname(os.path.abspath(template_path))),
        undefined=jinja2.StrictUndefined,
    )
    template = env.get_template(os.path.basename(template_path))
    with open(values_path) as f:
        values = json.load(f)
    sys.stdout.write(template.render(**values))


if __name__ == "__main__":
    main()
