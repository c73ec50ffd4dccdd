"""ndma.nki.isa.constants: the enums the isa calls take."""
import enum


class dge_mode(enum.Enum):
    unknown = "unknown"
    none = "none"
    swdge = "swdge"
    hwdge = "hwdge"


class oob_mode(enum.Enum):
    error = "error"
    skip = "skip"


class engine(enum.Enum):
    unknown = "unknown"
    tensor = "tensor"
    vector = "vector"
    scalar = "scalar"
    gpsimd = "gpsimd"
    sync = "sync"


class reduce_cmd(enum.Enum):
    """The engines' accumulator commands (range_select, select_reduce): ndma runs idle and
    reset_reduce (the reduce_res is the call's own row max); the others carry state between
    instructions and are refused (docs/nki.md "Selection")."""
    idle = "idle"
    reset = "reset"
    reduce = "reduce"
    reset_reduce = "reset_reduce"
    load_reduce = "load_reduce"
