"""ndma.nki.compiler: the compiler directives kernels carry (no effect on ndma's run)."""


def skip_middle_end_transformations(f):
    return f


class sbuf:
    @staticmethod
    def mod_alloc(*a, **kw):
        return None
