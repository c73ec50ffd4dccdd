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
