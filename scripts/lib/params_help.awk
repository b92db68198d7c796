# make help's parameter sections from workloads/params.tsv (the one
# declaration of every parameter). Variables: policies, clusters (the
# lists the table names by name: the registry's, emulated-clusters/).
BEGIN {
	FS = "\t"
	title["cluster"] = "Parameters:"
	title["replay"] = "Replay (make replay):"
	title["experiment"] = "Experiments (make experiment; alone it lists the definitions in experiments/):"
	lists["policies"] = policies
	lists["clusters"] = clusters
}
/^#/ || NF != 8 { next }
{
	if (!($2 in seen)) {
		seen[$2] = 1
		order[++sections] = $2
	}
	n = ++count[$2]
	rows[$2, n] = $0
	if ($7 == 1)
		settings = settings (settings ? " " : "") $1 "="
}
# Words of text, folded to width, the first line after lead, the others
# indented to the help column.
function fold(lead, text,    words, k, line, out) {
	split(text, words, " ")
	line = lead
	out = ""
	for (k = 1; k in words; k++) {
		if (length(line) + 1 + length(words[k]) > 92 && line !~ /^ *$/) {
			out = out line "\n"
			line = sprintf("%21s", "")
		}
		line = line (line ~ / $/ ? "" : " ") words[k]
	}
	return out line
}
function shape(type, choices) {
	if (choices in lists || choices == "patterns" || choices == "-")
		choices = ""
	if (choices != "")
		return "<" choices ">"
	if (type == "int") return "<n>"
	if (type == "float") return "<x>"
	if (type == "text") return "'<words>'"
	if (type == "path") return "<path>"
	return "<name>"
}
END {
	for (s = 1; s <= sections; s++) {
		sec = order[s]
		print title[sec]
		for (n = 1; n <= count[sec]; n++) {
			split(rows[sec, n], f, "\t")
			text = f[8]
			if (f[4] != "-")
				text = text " (default " f[4] ")"
			print fold(sprintf("  %-19s", f[1] "=" shape(f[3], f[5])), text)
			# A list kept elsewhere, on a line of its own, whole.
			if (f[5] in lists && lists[f[5]] != "")
				printf "%20s one of: %s\n", "", lists[f[5]]
		}
		if (sec == "experiment")
			print fold(sprintf("  %-19s", "(overrides)"),
				   "an experiment also takes, in place of its definition's: " settings \
				   " CLUSTER= POLICIES= PATTERNS= BASELINE= LOGS= LOADS= TA_SPEEDUPS= RATIOS=")
	}
}
