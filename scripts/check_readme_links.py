#!/usr/bin/env python3
"""README.md's links, which `mkdocs build --strict` does not see (README is not a page of the site): every relative
link names a file or folder of the repository, and every `docs/PAGE.md#anchor` an id of that page in the built site.

    python3 scripts/check_readme_links.py SITE_DIR      (SITE_DIR: what `mkdocs build --site-dir` wrote)

Exit 1 with one line per broken link; scripts/test.sh runs it in its phase "docs site".
"""
import html.parser
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


class Ids(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)


def page_ids(site, page):
    """The ids of docs/PAGE.md's built page (use_directory_urls: PAGE/index.html; index.md: index.html)."""
    rel = pathlib.Path(page).with_suffix("")
    built = site / "index.html" if rel.name == "index" and rel.parent == pathlib.Path(".") else site / rel / "index.html"
    if not built.is_file():
        return None
    parser = Ids()
    parser.feed(built.read_text(encoding="utf-8"))
    return parser.ids


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    site = pathlib.Path(sys.argv[1])
    broken = []
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # links inside fenced code are text, not links
    text = re.sub(r"(?ms)^```.*?^```", lambda m: "\n" * m.group().count("\n"), text)
    for number, line in enumerate(text.split("\n"), 1):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            where = f"README.md:{number}: {target}"
            if path and not (ROOT / path).exists():
                broken.append(f"{where}: no such file")
                continue
            if not anchor:
                continue
            if not path:
                broken.append(f"{where}: an anchor of README itself (not checked: link into docs/ instead)")
                continue
            if not path.startswith("docs/") or not path.endswith(".md"):
                broken.append(f"{where}: an anchor outside docs/*.md")
                continue
            ids = page_ids(site, path[len("docs/"):])
            if ids is None:
                broken.append(f"{where}: {path} is not a page of the built site")
            elif anchor not in ids:
                broken.append(f"{where}: no heading with id '{anchor}' in {path}")
    for line in broken:
        print(line, file=sys.stderr)
    if broken:
        sys.exit(1)
    print(f"README.md: every link resolves ({site})", file=sys.stderr)


if __name__ == "__main__":
    main()
