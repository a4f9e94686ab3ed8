# ada-unwind.py - lets gdb's `bt` walk through hijacked returns.
#
# In fentry and mcount modes every traced function's return address is
# replaced by ada_return_trampoline, and the real one is kept on the thread's
# shadow stack (mcount/hijack.c). gdb, unwinding a traced function, finds the
# trampoline as the caller, whose unwind information marks the return address
# undefined, and stops there. This unwinder recognises that frame and gives gdb
# the real caller: the shadow-stack frame whose return-address slot is just
# below the trampoline frame's stack pointer (the function's `ret` popped it).
# The trampoline frame has no size of its own: the caller's registers are the
# trampoline frame's, with pc replaced; a frame filter then leaves the
# trampoline's frames out of `bt`.
#
#   (gdb) source <ada>/mcount/gdb/ada-unwind.py
#
# Needs libada's debug information (the Makefile builds it with -g) to read the
# thread-local `ada_self.td`.

import gdb
from gdb.unwinder import Unwinder


class FrameId:
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class AdaTrampolineUnwinder(Unwinder):
    def __init__(self):
        super().__init__("ada-return-trampoline")

    def _trampoline(self):
        try:
            sym = gdb.lookup_global_symbol("ada_return_trampoline") or \
                gdb.lookup_static_symbol("ada_return_trampoline")
            if sym is not None:
                return int(sym.value().address)
            return int(gdb.parse_and_eval("&ada_return_trampoline"))
        except gdb.error:
            return None

    def _real_return(self, slot):
        """The real return address of the frame whose slot is `slot`."""
        td = gdb.parse_and_eval("ada_self.td")
        if int(td) == 0:
            return None
        depth = int(td["depth"])
        cap = int(td["shadow_cap"])
        shadow = td["shadow"]
        tramp = self._trampoline()
        real = None
        for d in range(min(depth, cap), 0, -1):
            f = shadow[d - 1]
            sp = int(f["sp"])
            if sp < slot:
                continue
            if sp > slot:
                break
            site = int(f["site"])
            if site != tramp:
                real = site  # the outermost frame of a tail-call chain
        return real

    def __call__(self, pending_frame):
        tramp = self._trampoline()
        if tramp is None:
            return None
        pc = int(pending_frame.read_register("rip"))
        # The trampoline's first byte is a nop that keeps address - 1 inside
        # its own unwind range; the frame's pc is the label's address.
        if pc != tramp:
            return None
        sp = int(pending_frame.read_register("rsp"))
        try:
            real = self._real_return(sp - 8)
        except gdb.error:
            return None
        if real is None:
            return None
        info = pending_frame.create_unwind_info(
            FrameId(pending_frame.read_register("rsp"), pending_frame.read_register("rip")))
        ptr = gdb.lookup_type("unsigned long")
        info.add_saved_register("rip", gdb.Value(real).cast(ptr))
        info.add_saved_register("rsp", gdb.Value(sp).cast(ptr))
        for reg in ("rbp", "rbx", "r12", "r13", "r14", "r15"):
            info.add_saved_register(reg, pending_frame.read_register(reg))
        return info


_unwinder = AdaTrampolineUnwinder()
gdb.unwinder.register_unwinder(None, _unwinder, replace=True)


class AdaTrampolineFilter:
    """Leaves the trampoline's own frames out of `bt`: the program never
    called it; it only stands where a return address was."""

    def __init__(self, unwinder):
        self.name = "ada-return-trampoline"
        self.priority = 100
        self.enabled = True
        self.unwinder = unwinder
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        tramp = self.unwinder._trampoline()
        return (f for f in frames if tramp is None or int(f.inferior_frame().pc()) != tramp)


AdaTrampolineFilter(_unwinder)
