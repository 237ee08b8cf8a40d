"""atheris target: the .idx parser of symnet.recordio (MXIndexedRecordIO). A bad file must raise
ValueError naming the file and the line; every offset it accepts is a whole number >= 0."""
import sys

import atheris

with atheris.instrument_imports():
    from symnet import recordio


def one_input(data):
    text = data.decode("utf-8", errors="surrogateescape")
    for key_type in (int, str):
        try:
            idx, keys = recordio.parse_index(text.splitlines(True), "fuzz.idx", key_type)
        except ValueError as e:
            assert str(e).startswith("fuzz.idx line "), e
            continue
        assert all(isinstance(v, int) and v >= 0 for v in idx.values())
        assert set(keys) == set(idx)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
