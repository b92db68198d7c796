#!/usr/bin/env bats
# The README and docs/: every relative link resolves (anchors too), tables
# are whole, the README stays short and links every page, the make
# commands in them name real targets and parameters, and the examples
# marked `<!-- test: no-cluster -->` (commands that need no cluster) give
# the output shown. docs/testing.md describes the marker.

setup_file() {
	load helpers
	# make alloc's tb-alloc, built once and quietly, so that the examples'
	# output is only theirs.
	make -s -C "$ROOT/plugins" tools
}

setup() { load helpers; }

# The pages: README.md and every docs/**/*.md. One Python program reads
# them (outside fenced code blocks and code spans for links) and prints
# what the test asks for: links, unlinked, make-commands or examples <dir>.
docs_py() {
	python3 - "$ROOT" "$@" <<'EOF'
import os, re, sys

root, what = os.path.abspath(sys.argv[1]), sys.argv[2]
pages = [os.path.join(root, "README.md")]
for d, _, files in os.walk(os.path.join(root, "docs")):
    pages += [os.path.join(d, f) for f in files if f.endswith(".md")]
pages.sort()
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")

def rel(p):
    return os.path.relpath(p, root)

def prose(text):
    return SPAN.sub("", FENCE.sub("", text))

def anchors(path):
    out = set()
    for line in prose(open(path).read()).split("\n"):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            s = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(s.replace(" ", "-"))
    return out

def links(page):
    for target in LINK.findall(prose(open(page).read())):
        if re.match(r"[a-z]+:", target):
            continue  # http:, mailto: ...
        path, _, anchor = target.partition("#")
        yield target, os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page, anchor

if what == "links":
    for page in pages:
        for target, path, anchor in links(page):
            if not os.path.exists(path):
                print(f"{rel(page)}: {target}: no such file")
            elif anchor and path.endswith(".md") and anchor not in anchors(path):
                print(f"{rel(page)}: {target}: no heading #{anchor} in {rel(path)}")
elif what == "unlinked":
    # Reachable from the README through links between pages (the results
    # index lists the dated pages, so the README stays short).
    seen, todo = {pages[0]}, [pages[0]]
    while todo:
        for _, path, _ in links(todo.pop()):
            if path.endswith(".md") and path not in seen and os.path.exists(path):
                seen.add(path)
                todo.append(path)
    for page in pages[1:]:
        if page not in seen:
            print(f"{rel(page)} is not reachable from README.md")
elif what == "tables":
    # A table moved in pieces loses its header or separator, or a cell.
    for page in pages:
        lines = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), open(page).read()).split("\n")
        i = 0
        while i < len(lines):
            if not lines[i].startswith("|"):
                i += 1
                continue
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            rows = [l.replace("\\|", "") for l in lines[i:j]]
            if len(rows) < 2 or not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", rows[1]):
                print(f"{rel(page)}:{i + 1}: a table without its header and separator rows")
            for k, row in enumerate(rows):
                if row.count("|") != rows[0].count("|"):
                    print(f"{rel(page)}:{i + k + 1}: {row.count('|') - 1} cells, the header has {rows[0].count('|') - 1}")
            i = j
elif what == "make-commands":
    # Every `make ...` in a code block or code span, one a line.
    for page in pages:
        text = open(page).read()
        spans = SPAN.findall(FENCE.sub("", text))
        blocks = [l for b in FENCE.findall(text) for l in b.split("\n")]
        for c in [s.strip("`") for s in spans] + blocks:
            c = re.sub(r"^\$ ", "", c.strip())
            if re.match(r"make( -s)? [a-z]", c):
                print(f"{rel(page)}\t{c.split(' #')[0]}")
elif what == "examples":
    # Each command of a marked block, and the output shown after it.
    out, k = sys.argv[3], 0
    for page in pages:
        lines = open(page).read().split("\n")
        for i, line in enumerate(lines):
            m = re.match(r"<!-- test: no-cluster(, abridged)? -->$", line)
            if not m:
                continue
            assert lines[i + 1].startswith("```"), f"{rel(page)}:{i + 2}: the marker must precede a code block"
            j, cmd, shown = i + 2, None, []
            while True:
                if lines[j].startswith("```") or lines[j].startswith("$ "):
                    if cmd is not None:
                        k += 1
                        with open(f"{out}/{k}.cmd", "w") as f:
                            f.write(f"{rel(page)}:{i + 1}\t{'abridged' if m.group(1) else 'exact'}\t{cmd}\n")
                        with open(f"{out}/{k}.out", "w") as f:
                            f.write("\n".join(shown) + "\n")
                    if lines[j].startswith("```"):
                        break
                    cmd, shown = lines[j][2:], []
                else:
                    shown.append(lines[j])
                j += 1
    print(k)
EOF
}

@test "every relative link in README.md and docs/ resolves, anchors included" {
	run docs_py links
	assert_success
	assert_output ""
}

@test "every table in README.md and docs/ has its header, separator and cells" {
	run docs_py tables
	assert_success
	assert_output ""
}

@test "the README has at most 250 lines" {
	local n
	n=$(wc -l <"$ROOT/README.md")
	[ "$n" -le 250 ] || fail "README.md has $n lines; move the detail to a page under docs/"
}

@test "every page under docs/ is reachable from the README" {
	run docs_py unlinked
	assert_success
	assert_output ""
}

@test "make help lists every target the README's commands table names" {
	run make -s -C "$ROOT" help
	assert_success
	local target n=0
	for target in $(grep -o '^| `make [a-z-]*' "$ROOT/README.md" | sed 's/.*make //' | sort -u); do
		assert_line --regexp "^  make $target +"
		n=$((n + 1))
	done
	[ "$n" -ge 15 ] || fail "only $n targets found in the README's table"
}

@test "every make command in the docs names a target and a declared parameter" {
	local targets names page cmd word bad=""
	targets=" $(grep -oE '^[a-z-]+:' "$ROOT/Makefile" | tr -d : | tr '\n' ' ') "
	# The parameters: workloads/params.tsv, the one declaration of each.
	names=" $(awk -F'\t' '!/^#/ && NF == 8 {print $1}' "$ROOT/workloads/params.tsv" | tr '\n' ' ') "
	while IFS=$'\t' read -r page cmd; do
		word=$(sed -E 's/^make (-s )?([a-z-]+).*/\2/' <<<"$cmd")
		[[ $targets == *" $word "* ]] || bad+="$page: '$cmd': no target $word"$'\n'
		for word in $(grep -oE '(^| |\[)[A-Z][A-Z0-9_]*=' <<<"$cmd" | tr -d ' [='); do
			[[ $names == *" $word "* ]] || grep -qw "$word" "$ROOT/Makefile" ||
				bad+="$page: '$cmd': no parameter $word"$'\n'
		done
	done < <(docs_py make-commands)
	[ -z "$bad" ] || fail "$bad"
}

@test "the examples marked no-cluster give the output shown" {
	local dir=$BATS_TEST_TMPDIR/examples k n where mode cmd line
	mkdir -p "$dir"
	n=$(docs_py examples "$dir")
	[ "$n" -ge 3 ] || fail "only $n marked examples found"
	for ((k = 1; k <= n; k++)); do
		IFS=$'\t' read -r where mode cmd <"$dir/$k.cmd"
		# Only make targets that need no cluster are marked; anything else
		# is refused rather than run.
		[[ $cmd =~ ^make\ (alloc|help|experiment)( |$) ]] ||
			fail "$where: '$cmd' is not a make alloc, help or experiment command"
		cd "$ROOT"
		run bash -c "$cmd"
		[ "$status" -eq 0 ] || fail "$where: '$cmd' exited $status: $output"
		if [ "$mode" = exact ]; then
			[ "$output" = "$(cat "$dir/$k.out")" ] ||
				fail "$where: '$cmd' gave"$'\n'"$output"$'\n'"not"$'\n'"$(cat "$dir/$k.out")"
		else
			while IFS= read -r line; do
				[ -z "$line" ] || assert_line "$line"
			done <"$dir/$k.out"
		fi
	done
}
