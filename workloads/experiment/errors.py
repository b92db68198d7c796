"""make experiment's one-line error, and the checks of a list of names and
of a paper.* key's metric and log."""


class ExperimentError(Exception):
    pass


def check_names(what, names, valid, where):
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise ExperimentError(f"{where}{what} '{' '.join(names)}': expected some of "
                              f"{' '.join(valid)}")


def paper_key_name(key, metrics, where, logs=None):
    """A paper.<metric>.<...> line's name, after checking that its metric
    (the key's first word) is one of metrics and, given logs, that its log
    (the second) is one of them or *."""
    name = "paper." + ".".join(key)
    if key[0] not in metrics:
        raise ExperimentError(f"{where}{name}: unknown metric '{key[0]}'; expected one of "
                              f"{' '.join(metrics)}")
    if logs is not None and key[1] not in list(logs) + ["*"]:
        raise ExperimentError(f"{where}{name}: log '{key[1]}' is not among the logs "
                              f"'{' '.join(logs)}'")
    return name
