"""contrib.text.embedding: token embeddings, a Vocabulary whose every index has a vector
(idx_to_vec, row 0 the unknown token's). CustomEmbedding reads a local 'token v1 v2 ...' file;
GloVe and FastText fetch their pretrained files into embedding_root on first use through
gluon.utils.download (offline: its error names the file and where to put it);
CompositeEmbedding concatenates embeddings over a vocabulary. register/create/
get_pretrained_file_names work on the registry of embedding classes, as MXNet 1.9.1's."""
import logging
import os
import tarfile
import warnings
import zipfile

from . import _constants as C
from . import vocab
from ... import base
from ... import ndarray as nd
from ... import registry
from ...util import is_np_array


def _array_fn():
    if is_np_array():
        from ... import numpy as _np
        return _np.array
    return nd.array


def register(embedding_cls):
    """Class decorator: registers a _TokenEmbedding subclass under its lower-cased name."""
    return registry.get_register_func(_TokenEmbedding, "token embedding")(embedding_cls)


def create(embedding_name, **kwargs):
    """An instance of the registered embedding `embedding_name` (e.g. 'glove')."""
    return registry.get_create_func(_TokenEmbedding, "token embedding")(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of one registered embedding, or {name: file names} of all."""
    reg = registry.get_registry(_TokenEmbedding)
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1.keys()) for name, cls in reg.items()}
    if embedding_name not in reg:
        raise KeyError("Cannot find `embedding_name` %s. Use `get_pretrained_file_names("
                       "embedding_name=None).keys()` to get all the valid embedding names."
                       % embedding_name)
    return list(reg[embedding_name].pretrained_file_name_sha1.keys())


class _TokenEmbedding(vocab.Vocabulary):
    """Base of the embeddings: loading a vector file, looking vectors up, updating them."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        repo_url = os.environ.get("MXNET_GLUON_REPO", C.APACHE_REPO_URL)
        return "{}gluon/embeddings/{}/{}".format(repo_url, cls.__name__.lower(),
                                                 cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """The path of the pretrained file under embedding_root/<class name>/, downloaded (and
        unpacked from its .zip or .tar.gz) unless present with the right SHA-1."""
        from ...gluon.utils import check_sha1, download
        embedding_dir = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        url = cls._get_pretrained_file_url(pretrained_file_name)
        path = os.path.join(embedding_dir, pretrained_file_name)
        downloaded = os.path.basename(url)
        downloaded_path = os.path.join(embedding_dir, downloaded)
        file_hash = cls.pretrained_file_name_sha1[pretrained_file_name]
        archive_hashes = getattr(cls, "pretrained_archive_name_sha1", None)
        download_hash = archive_hashes[downloaded] if archive_hashes is not None else file_hash
        if not os.path.exists(path) or not check_sha1(path, file_hash):
            download(url, downloaded_path, sha1_hash=download_hash)
            ext = os.path.splitext(downloaded)[1]
            if ext == ".zip":
                with zipfile.ZipFile(downloaded_path, "r") as zf:
                    zf.extractall(embedding_dir)
            elif ext == ".gz":
                with tarfile.open(downloaded_path, "r:gz") as tar:
                    tar.extractall(path=embedding_dir)
        return path

    def _init_pretrained(self, embedding_cls, pretrained_file_name, embedding_root, init_unknown_vec,
                         vocabulary, kwargs):
        """The __init__ of a pretrained embedding (GloVe, FastText): checks the file name, sets up
        the Vocabulary (the base after embedding_cls, as its own super() would), loads the file
        (fetched into embedding_root/<name>/ if missing) and indexes `vocabulary` if given."""
        embedding_cls._check_pretrained_file_names(pretrained_file_name)
        super(embedding_cls, self).__init__(**kwargs)
        path = embedding_cls._get_pretrained_file(embedding_root, pretrained_file_name)
        self._load_embedding(path, " ", init_unknown_vec)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec,
                        encoding="utf8"):
        """Appends each token of the file with its vector; the unknown token's vector is the
        file's (its first line for it) or init_unknown_vec(shape=vec_len). Duplicate tokens and
        one-number lines (headers) are skipped with a warning."""
        pretrained_file_path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(pretrained_file_path):
            raise ValueError("`pretrained_file_path` must be a valid path to the pre-trained "
                             "token embedding file.")
        logging.info("Loading pre-trained token embedding vectors from %s", pretrained_file_path)
        vec_len = None
        all_elems = []
        seen = set()
        unknown_vec = None
        with open(pretrained_file_path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                assert len(elems) > 1, \
                    "At line %d of the pre-trained text embedding file: the data format of the " \
                    "pre-trained token embedding file %s is unexpected." \
                    % (line_num, pretrained_file_path)
                token, elems = elems[0], [float(i) for i in elems[1:]]
                if token == self.unknown_token and unknown_vec is None:
                    unknown_vec = elems
                    seen.add(self.unknown_token)
                elif token in seen:
                    warnings.warn("At line %d of the pre-trained token embedding file: the "
                                  "embedding vector for token %s has been loaded and a duplicate "
                                  "embedding for the  same token is seen and skipped."
                                  % (line_num, token))
                elif len(elems) == 1:
                    warnings.warn("At line %d of the pre-trained text embedding file: token %s "
                                  "with 1-dimensional vector %s is likely a header and is "
                                  "skipped." % (line_num, token, elems))
                else:
                    if vec_len is None:
                        vec_len = len(elems)
                        all_elems.extend([0] * vec_len)  # row 0: the unknown token's
                    else:
                        assert len(elems) == vec_len, \
                            "At line %d of the pre-trained token embedding file: the dimension " \
                            "of token %s is %d but the dimension of previous tokens is %d. " \
                            "Dimensions of all the tokens must be the same." \
                            % (line_num, token, len(elems), vec_len)
                    all_elems.extend(elems)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    seen.add(token)
        self._vec_len = vec_len
        array = _array_fn()
        self._idx_to_vec = array(all_elems).reshape((-1, self.vec_len))
        if unknown_vec is None:
            init_val = init_unknown_vec(shape=self.vec_len)
            if is_np_array() and hasattr(init_val, "as_np_ndarray"):
                init_val = init_val.as_np_ndarray()
            self._idx_to_vec[C.UNKNOWN_IDX] = init_val
        else:
            self._idx_to_vec[C.UNKNOWN_IDX] = array(unknown_vec)

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = vocabulary.token_to_idx.copy() \
            if vocabulary.token_to_idx is not None else None
        self._idx_to_token = vocabulary.idx_to_token[:] \
            if vocabulary.idx_to_token is not None else None
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = vocabulary.reserved_tokens[:] \
            if vocabulary.reserved_tokens is not None else None

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """idx_to_vec of the vocabulary: the embeddings' vectors side by side (each unknown
        token's own row 0 for index 0)."""
        if is_np_array():
            from ... import numpy as _np
            zeros = _np.zeros
        else:
            zeros = nd.zeros
        new_vec_len = sum(embed.vec_len for embed in token_embeddings)
        new_idx_to_vec = zeros(shape=(vocab_len, new_vec_len))
        col = 0
        for embed in token_embeddings:
            end = col + embed.vec_len
            new_idx_to_vec[0, col:end] = embed.idx_to_vec[0]
            new_idx_to_vec[1:, col:end] = embed.get_vecs_by_tokens(vocab_idx_to_token[1:])
            col = end
        self._vec_len = new_vec_len
        self._idx_to_vec = new_idx_to_vec

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is not None:
            assert isinstance(vocabulary, vocab.Vocabulary), \
                "The argument `vocabulary` must be an instance of " \
                "mxnet.contrib.text.vocab.Vocabulary."
            self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
            self._index_tokens_from_vocabulary(vocabulary)

    @property
    def vec_len(self):
        return self._vec_len

    @property
    def idx_to_vec(self):
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (the unknown one's when not indexed; with lower_case_backup
        the lower-cased token is tried next), or a (len(tokens), vec_len) array for a list."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if lower_case_backup:
            indices = [self.token_to_idx[t] if t in self.token_to_idx
                       else self.token_to_idx.get(t.lower(), C.UNKNOWN_IDX) for t in tokens]
        else:
            indices = [self.token_to_idx.get(t, C.UNKNOWN_IDX) for t in tokens]
        if is_np_array():
            from ... import numpy_extension as _npx
            embedding = _npx.embedding
        else:
            embedding = nd.Embedding
        vecs = embedding(_array_fn()(indices), self.idx_to_vec, self.idx_to_vec.shape[0],
                         self.idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Sets the vectors of indexed tokens (an unknown token only when named as
        unknown_token) to new_vectors: (len(tokens), vec_len), or (vec_len,) for one token."""
        assert self.idx_to_vec is not None, "The property `idx_to_vec` has not been properly set."
        if not isinstance(tokens, list) or len(tokens) == 1:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) in [1, 2], \
                "`new_vectors` must be a 1-D or 2-D NDArray if `tokens` is a singleton."
            if not isinstance(tokens, list):
                tokens = [tokens]
            if len(new_vectors.shape) == 1:
                new_vectors = new_vectors.expand_dims(axis=0)
        else:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) == 2, \
                "`new_vectors` must be a 2-D NDArray if `tokens` is a list of multiple strings."
        assert new_vectors.shape == (len(tokens), self.vec_len), \
            "The length of new_vectors must be equal to the number of tokens and the width of" \
            "new_vectors must be equal to the dimension of embeddings of the glossary."
        indices = []
        for token in tokens:
            if token not in self.token_to_idx:
                raise ValueError("Token %s is unknown. To update the embedding vector for an "
                                 "unknown token, please specify it explicitly as the "
                                 "`unknown_token` %s in `tokens`. This is to avoid unintended "
                                 "updates." % (token, self.idx_to_token[C.UNKNOWN_IDX]))
            indices.append(self.token_to_idx[token])
        self._idx_to_vec[_array_fn()(indices)] = new_vectors

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        name = cls.__name__.lower()
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError("Cannot find pretrained file %s for token embedding %s. Valid "
                           "pretrained files for embedding %s: %s"
                           % (pretrained_file_name, name, name,
                              ", ".join(cls.pretrained_file_name_sha1.keys())))


_DEFAULT_ROOT = os.path.join(base.data_dir(), "embeddings")


@register
class GloVe(_TokenEmbedding):
    """GloVe vectors (Pennington et al., 2014): pretrained_file_name one of
    get_pretrained_file_names('glove'), e.g. 'glove.6B.50d.txt'."""

    # MXNet's constants name the two tables the other way round; the pairing is MXNet's
    pretrained_archive_name_sha1 = C.GLOVE_PRETRAINED_FILE_SHA1
    pretrained_file_name_sha1 = C.GLOVE_PRETRAINED_ARCHIVE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        # glove.6B.50d.txt comes in glove.6B.zip: the archive with the same corpus part
        by_corpus = {a.split(".")[1]: a for a in GloVe.pretrained_archive_name_sha1}
        return by_corpus[pretrained_file_name.split(".")[1]]

    def __init__(self, pretrained_file_name="glove.840B.300d.txt", embedding_root=_DEFAULT_ROOT,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        self._init_pretrained(GloVe, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary,
                              kwargs)


@register
class FastText(_TokenEmbedding):
    """fastText vectors (Bojanowski et al., 2017): pretrained_file_name one of
    get_pretrained_file_names('fasttext'), e.g. 'wiki.simple.vec'."""

    pretrained_archive_name_sha1 = C.FAST_TEXT_ARCHIVE_SHA1
    pretrained_file_name_sha1 = C.FAST_TEXT_FILE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return ".".join(pretrained_file_name.split(".")[:-1]) + ".zip"

    def __init__(self, pretrained_file_name="wiki.simple.vec", embedding_root=_DEFAULT_ROOT,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        self._init_pretrained(FastText, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary,
                              kwargs)


class CustomEmbedding(_TokenEmbedding):
    """An embedding from a local file of 'token<elem_delim>v1<elem_delim>v2...' lines."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The vocabulary's tokens with the vectors of several embeddings concatenated."""

    def __init__(self, vocabulary, token_embeddings):
        assert isinstance(vocabulary, vocab.Vocabulary), \
            "The argument `vocabulary` must be an instance of " \
            "mxnet.contrib.text.indexer.Vocabulary."
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embed in token_embeddings:
            assert isinstance(embed, _TokenEmbedding), \
                "The argument `token_embeddings` must be an instance or a list of instances of " \
                "`mxnet.contrib.text.embedding.TextEmbedding` whose embedding vectors will be" \
                "loaded or concatenated-then-loaded to map to the indexed tokens."
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
