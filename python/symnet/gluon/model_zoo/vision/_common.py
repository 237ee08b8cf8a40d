"""What every model-zoo constructor shares: refusing pretrained downloads with a way out."""


def check_not_pretrained(pretrained, name):
    """symnet has no network access: pretrained weights cannot be fetched, but a .params file
    of MXNet's model zoo loads into the network built here."""
    if pretrained:
        raise ValueError(
            "model_zoo.vision.%s(pretrained=True): symnet does not download weights (no network "
            "access). Build the network with pretrained=False, then load MXNet's file: "
            "net.load_parameters('%s-<hash>.params') (from ~/.mxnet/models on a machine where "
            "MXNet fetched it)" % (name, name))
