import sys
import mindspore
from mindspore import nn
from mindspore.nn import Cell
from mindspore.ops import functional as F
#
#
sys.path.insert(0, '/tmp')
Net = getattr(sys.modules['__main__'], 'Net')

class NetOpt(Net, nn.Cell):

    def __init__(self, obj):
        nn.Cell.__init__(self)
        for key, value in obj.__dict__.items():
            setattr(self, key, value)

    def construct(self, x, y):
        ger_var = x.ger(y)
        return ger_var
#