"""mx.rnn.io: turning tokenized sentences into integer codes (encode_sentences) and serving them
to a BucketingModule in batches of equal length (BucketSentenceIter)."""
import bisect
import random

import numpy as np

from .. import ndarray
from ..io import DataBatch, DataDesc, DataIter

__all__ = ['encode_sentences', 'BucketSentenceIter', 'DataIter', 'DataBatch', 'DataDesc']


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n', start_label=0,
                     unknown_token=None):
    """Codes each token of each sentence by `vocab`, adding unseen tokens to it.

    Parameters
    ----------
    sentences : list of list of str
        The tokenized sentences.
    vocab : dict of str to int, or None
        The codes known so far (extended in place). None starts a new vocabulary holding only
        invalid_key -> invalid_label, to which every new token is added.
    invalid_label : int
        The code of invalid_key (end of sentence, padding); never given to another token.
    invalid_key : str
        The token of invalid_label in a new vocabulary.
    start_label : int
        The first code given to a new token.
    unknown_token : str or None
        With a given vocab, tokens it lacks are coded as this token (which gets the next code the
        first time). None: a token missing from a given vocab is an error.

    Returns
    -------
    (coded sentences as lists of int, the vocabulary)
    """
    next_code = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    coded = []
    for sentence in sentences:
        codes = []
        for word in sentence:
            if word not in vocab:
                assert new_vocab or unknown_token, "Unknown token %s" % word
                if next_code == invalid_label:
                    next_code += 1
                if unknown_token:
                    word = unknown_token
                # as in MXNet, the unknown token takes a fresh code at every unseen word (the
                # last one wins in vocab)
                vocab[word] = next_code
                next_code += 1
            codes.append(vocab[word])
        coded.append(codes)
    return coded, vocab


class BucketSentenceIter(DataIter):
    """Batches of coded sentences for language modelling, bucketed by length: each sentence goes
    to the smallest bucket that holds it, padded with invalid_label (longer ones are dropped);
    a batch comes from one bucket, its bucket_key the bucket's length. The label of each step is
    the next token (invalid_label after the last).

    Each reset (and the constructor) shuffles the order of the batches with Python's `random`
    and the sentences within each bucket with numpy's global generator, the same draws as
    MXNet's, so seeding both gives MXNet's batches.

    Parameters
    ----------
    sentences : list of list of int
        The coded sentences.
    batch_size : int
        The sentences per batch; a bucket's last partial batch is left out.
    buckets : list of int or None
        The bucket lengths (sorted in place). None: every length that at least batch_size
        sentences have.
    invalid_label : int
        The padding code, also the label after each sentence's end.
    data_name, label_name : str
        The names in provide_data and provide_label.
    dtype : str
        The dtype of the data and label arrays.
    layout : str
        'NT' for (batch, length) arrays, 'TN' for (length, batch).
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name='data',
                 label_name='softmax_label', dtype='float32', layout='NT'):
        super(BucketSentenceIter, self).__init__()
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, n in enumerate(counts) if n >= batch_size]
        buckets.sort()

        per_bucket = [[] for _ in buckets]
        ndiscard = 0
        for sentence in sentences:
            b = bisect.bisect_left(buckets, len(sentence))
            if b == len(buckets):
                ndiscard += 1
                continue
            row = np.full((buckets[b],), invalid_label, dtype=dtype)
            row[:len(sentence)] = sentence
            per_bucket[b].append(row)
        # buckets no sentence fell into are dropped
        self.buckets = [length for length, rows in zip(buckets, per_bucket) if rows]
        self.data = [np.asarray(rows, dtype=dtype) for rows in per_bucket if rows]
        print("WARNING: discarded %d sentences longer than the largest bucket." % ndiscard)

        self.batch_size = batch_size
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find('N')
        self.layout = layout
        self.default_bucket_key = max(self.buckets)

        if self.major_axis not in (0, 1):
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)" % layout)
        shape = (batch_size, self.default_bucket_key)
        if self.major_axis == 1:
            shape = shape[::-1]
        self.provide_data = [DataDesc(name=self.data_name, shape=shape, layout=self.layout)]
        self.provide_label = [DataDesc(name=self.label_name, shape=shape, layout=self.layout)]

        # (bucket, first row) of every full batch
        self.idx = []
        for i, rows in enumerate(self.data):
            self.idx.extend((i, j) for j in range(0, len(rows) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Back to the first batch, with the batches and each bucket's sentences shuffled."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for rows in self.data:
            np.random.shuffle(rows)
        self.nddata = []
        self.ndlabel = []
        for rows in self.data:
            label = np.empty_like(rows)
            label[:, :-1] = rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(rows, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next DataBatch (StopIteration after the last)."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])

    __next__ = next
