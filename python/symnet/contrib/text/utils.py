"""contrib.text.utils: counting the tokens of a text."""
import collections
import re


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False,
                          counter_to_update=None):
    """A Counter of the tokens of source_str, split at token_delim or seq_delim (regular
    expressions), lower-cased when to_lower; counter_to_update, when given, is updated and
    returned."""
    tokens = [t for t in re.split(token_delim + "|" + seq_delim, source_str) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
