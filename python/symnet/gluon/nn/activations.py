"""mx.gluon.nn.activations: MXNet's module of the activation layers (symnet defines them in
basic_layers; this module gives them MXNet's import path)."""
from .basic_layers import ELU, GELU, SELU, Activation, LeakyReLU, PReLU, Swish

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish"]
