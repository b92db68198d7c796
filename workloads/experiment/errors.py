"""make experiment's one-line error, and the check of a list of names."""


class ExperimentError(Exception):
    pass


def check_names(what, names, valid, where):
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise ExperimentError(f"{where}{what} '{' '.join(names)}': expected some of "
                              f"{' '.join(valid)}")
