"""What every model-zoo constructor shares: pretrained=True loads MXNet's parameter file."""


def load_pretrained(net, pretrained, name, ctx=None, root=None):
    """net, with MXNet's pretrained parameters of model `name` loaded when `pretrained`, from
    model_store.get_model_file(name, root) ($MXNET_HOME/models/<name>-<hash>.params, fetched
    when missing; offline, the error names the file and where to put it)."""
    if pretrained:
        from ..model_store import get_model_file
        net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net
