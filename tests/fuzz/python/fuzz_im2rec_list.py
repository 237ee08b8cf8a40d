"""atheris target: tools/im2rec.py's .lst parser. A bad list must end in SystemExit naming the file
and the line (what im2rec prints), never another exception."""
import os
import sys

import atheris

with atheris.instrument_imports():
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools"))
    import im2rec


def one_input(data):
    text = data.decode("utf-8", errors="surrogateescape")
    try:
        for index, labels, path in im2rec.parse_list(text.splitlines(True), "fuzz.lst"):
            assert isinstance(index, int) and isinstance(path, str)
            assert all(isinstance(v, float) for v in labels)
    except SystemExit as e:
        assert str(e).startswith("fuzz.lst line "), e


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
