"""Constants of the contrib text datasets."""

# appended to every line of a WikiText file: the token that ends a sentence
EOS_TOKEN = "<eos>"
