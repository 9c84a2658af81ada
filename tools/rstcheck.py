#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse reStructuredText files with docutils and fail on any warning: the
syntax check of the series' documentation that make htmldocs would do, for
a machine without Sphinx.  Sphinx's own directives and roles that the
kernel's pages use (kernel-doc, toctree, :doc:, :ref:) are taken as
given.

usage: rstcheck.py FILE...      (- reads standard input)"""

import sys

import docutils.core
import docutils.utils
from docutils.parsers.rst import Directive, directives, roles


class Accepted(Directive):
    """A Sphinx directive: its arguments and options are not checked."""
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None

    def run(self):
        return []


def accepted_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [docutils.nodes.literal(rawtext, text)], []


def check(name, text):
    """The warnings docutils has for text, as "name:line: message" lines."""
    for directive in ("kernel-doc", "toctree"):
        directives.register_directive(directive, Accepted)
    for role in ("doc", "ref"):
        roles.register_local_role(role, accepted_role)
    try:
        docutils.core.publish_doctree(text, source_path=name, settings_overrides={
            "report_level": docutils.utils.Reporter.WARNING_LEVEL,
            "halt_level": docutils.utils.Reporter.WARNING_LEVEL,
            "warning_stream": False})
    except docutils.utils.SystemMessage as e:
        return [str(e)]
    return []


def main(paths):
    failed = []
    for path in paths:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        failed += check(path, text)
    for line in failed:
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else __doc__)
