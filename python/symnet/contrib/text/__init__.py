"""mx.contrib.text (MXNet 1.9.1): token counting (utils), Vocabulary (vocab) and token
embeddings (embedding: CustomEmbedding from a local file, CompositeEmbedding, and the pretrained
GloVe and FastText, whose files are downloaded on first use)."""
from . import embedding, utils, vocab

__all__ = ["embedding", "utils", "vocab"]
