"""mx.gluon.nn: layers."""
from . import activations, basic_layers, conv_layers
from .basic_layers import (ELU, GELU, SELU, Activation, BatchNorm, BatchNormReLU, Dense, Dropout, Embedding,
                           Flatten, GroupNorm, HybridLambda, HybridSequential, InstanceNorm,
                           Lambda, LayerNorm, LeakyReLU, PReLU, Sequential, Swish)
from .conv_layers import (AvgPool1D, AvgPool2D, AvgPool3D, Conv1D, Conv1DTranspose, Conv2D,
                          Conv2DTranspose, Conv3D, Conv3DTranspose, GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D,
                          GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D, MaxPool1D,
                          MaxPool2D, MaxPool3D, ReflectionPad2D)
from ..block import Block, HybridBlock, SymbolBlock

__all__ = ["ELU", "GELU", "Activation", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "BatchNorm", "BatchNormReLU", "Block", "Conv1D", "Conv1DTranspose", "Conv2D",
           "Conv2DTranspose", "Conv3D", "Conv3DTranspose", "Dense",
           "Dropout", "Embedding", "Flatten", "GlobalAvgPool1D", "GlobalAvgPool2D",
           "GlobalAvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "GroupNorm", "HybridBlock", "HybridLambda", "HybridSequential", "InstanceNorm",
           "Lambda", "LayerNorm", "LeakyReLU", "MaxPool1D", "MaxPool2D", "MaxPool3D", "PReLU",
           "ReflectionPad2D", "SELU", "Sequential", "Swish", "SymbolBlock"]
