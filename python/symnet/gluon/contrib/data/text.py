"""gluon.contrib.data.text: the WikiText-2 and WikiText-103 word-level language-modelling
datasets (Salesforce research, Creative Commons Attribution-ShareAlike), as MXNet 1.9.1's.

Each sample is (data, label): seq_len token indices and the same sequence shifted by one token,
both int32, cut from the whole segment read as one stream of tokens with '<eos>' ending every
non-empty line (the last partial sequence is dropped). The vocabulary is built from the segment
(tokens by falling frequency, '<unk>' and '<eos>' first) unless one is given.

The token files come from the archive MXNet's Gluon repository holds ($MXNET_GLUON_REPO may
point elsewhere, a file:// folder too), fetched into `root` through gluon.utils.download when the
segment's file is missing there or its SHA-1 differs. Offline, the error names the archive, its
URL and the folder to put it (or its unpacked files) in."""
import os
import shutil
import zipfile

import numpy as np

from . import _constants as C
from .... import base, nd
from ....contrib import text
from ...data import dataset  # noqa: F401 -- a name of MXNet's module (its base's home)
from ...data.vision.datasets import _DownloadedDataset
from ...utils import _get_repo_file_url, check_sha1, download

__all__ = ["WikiText2", "WikiText103"]


class _LanguageModelDataset(_DownloadedDataset):
    """A dataset read from one downloaded text file, with its vocabulary and token counts."""

    def __init__(self, root, namespace, vocabulary):
        self._vocab = vocabulary
        self._counter = None
        self._namespace = namespace
        # MXNet's downloaded datasets create their folder (download then writes into it)
        root = os.path.expanduser(root)
        if not os.path.isdir(root):
            os.makedirs(root)
        super(_LanguageModelDataset, self).__init__(root, None)

    @property
    def vocabulary(self):
        return self._vocab

    @property
    def frequencies(self):
        return self._counter

    def _build_vocab(self, content):
        if not self._counter:
            self._counter = text.utils.count_tokens_from_str(content)
        if not self._vocab:
            self._vocab = text.vocab.Vocabulary(counter=self.frequencies, reserved_tokens=[C.EOS_TOKEN])


class _WikiText(_LanguageModelDataset):
    """What WikiText2 and WikiText103 share; they name the archive and the segment files."""

    def _read_batch(self, filename):
        """(data, label) int32 arrays: the file's tokens as indices, '<eos>' after each line,
        label the data shifted by one."""
        with open(filename, "r", encoding="utf8") as fin:
            content = fin.read()
        self._build_vocab(content)
        lines = [line for line in (x.strip().split() for x in content.splitlines()) if line]
        tokens = [tok for line in lines for tok in line + [C.EOS_TOKEN]]
        indices = self.vocabulary.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _fetch_archive(self):
        """Downloads the archive into root and unpacks its files there (folders flattened)."""
        archive_file_name, archive_hash = self._archive_file
        url = _get_repo_file_url("gluon/dataset/" + self._namespace, archive_file_name)
        try:
            downloaded = download(url, path=self._root, sha1_hash=archive_hash)
        except RuntimeError as e:
            data_file_name = self._data_file[self._segment][0]
            raise RuntimeError(
                "%s: %s is not in %s and %s could not be downloaded (%s). Put %s (from %s, or "
                "$MXNET_GLUON_REPO/gluon/dataset/%s/) in %s, or unpack its %s there, or pass root= "
                "the folder that holds them" % (type(self).__name__, data_file_name, self._root,
                                                archive_file_name, e, archive_file_name, url,
                                                self._namespace, self._root, data_file_name)) from e
        with zipfile.ZipFile(downloaded, "r") as zf:
            for member in zf.namelist():
                filename = os.path.basename(member)
                if filename:  # folder entries have no base name
                    with zf.open(member) as source, open(os.path.join(self._root, filename), "wb") as target:
                        shutil.copyfileobj(source, target)

    def _get_data(self):
        data_file_name, data_hash = self._data_file[self._segment]
        path = os.path.join(self._root, data_file_name)
        if not os.path.exists(path) or not check_sha1(path, data_hash):
            self._fetch_archive()
        data, label = self._read_batch(path)
        # whole sequences only (MXNet cuts the tail so that the reshape works)
        usable = len(data) // self._seq_len * self._seq_len
        self._data = nd.array(data, dtype=data.dtype)[:usable].reshape((-1, self._seq_len))
        self._label = nd.array(label, dtype=label.dtype)[:usable].reshape((-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (2M training tokens). segment: 'train', 'validation' or 'test'; vocab: a
    contrib.text.vocab.Vocabulary to index with (default: built from the segment); seq_len: the
    length of each sample, regardless of sentence boundaries; root: where the files are kept
    (default $MXNET_HOME/datasets/wikitext-2)."""

    def __init__(self, root=os.path.join(base.data_dir(), "datasets", "wikitext-2"), segment="train", vocab=None,
                 seq_len=35):
        # MXNet's file names and SHA-1s
        self._archive_file = ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
        self._data_file = {"train": ("wiki.train.tokens", "863f29c46ef9d167fff4940ec821195882fe29d1"),
                           "validation": ("wiki.valid.tokens", "0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422"),
                           "test": ("wiki.test.tokens", "c7b8ce0aa086fb34dab808c5c49224211eb2b172")}
        self._segment = segment
        self._seq_len = seq_len
        super(WikiText2, self).__init__(root, "wikitext-2", vocab)


class WikiText103(_WikiText):
    """WikiText-103 (103M training tokens); the arguments are WikiText2's (default root
    $MXNET_HOME/datasets/wikitext-103)."""

    def __init__(self, root=os.path.join(base.data_dir(), "datasets", "wikitext-103"), segment="train",
                 vocab=None, seq_len=35):
        self._archive_file = ("wikitext-103-v1.zip", "0aec09a7537b58d4bb65362fee27650eeaba625a")
        self._data_file = {"train": ("wiki.train.tokens", "b7497e2dfe77e72cfef5e3dbc61b7b53712ac211"),
                           "validation": ("wiki.valid.tokens", "c326ac59dc587676d58c422eb8a03e119582f92b"),
                           "test": ("wiki.test.tokens", "8a5befc548865cec54ed4273cf87dbbad60d1e47")}
        self._segment = segment
        self._seq_len = seq_len
        super(WikiText103, self).__init__(root, "wikitext-103", vocab)
