#!/usr/bin/env python3
"""warp-compile.py - compiles a built-in kernel source (.cu) into warp-wide
C (sim/emulator/warp.h): each kernel runs one whole warp per call.

    [CPP="gcc -E"] warp-compile.py KERNEL.cu OUTPUT.c

How a kernel becomes warp-wide:
  - every local variable of a CUDA thread becomes an array of 32 lane
    values (v[ms_L]); parameters, shared arrays and blockIdx stay scalars;
  - the body becomes a control-flow graph whose blocks end at a memory
    access, an atomic, a warp collective, a __syncthreads, a branch or the
    kernel's end; a block runs for a group of lanes (a mask) as one loop
    over them; __device__ helpers are inlined;
  - an if or a loop with no stop inside (a GEMM's register-tile loop) stays
    a C statement, run lane after lane inside its block's loop: nothing the
    scheduler sees happens in it, and gcc unrolls what it can;
  - a loop of at most 32 constant steps with stops inside (a tile's rows, a
    tile's k) is unrolled: its counter becomes a constant of each copy;
  - a branch whose lanes disagree splits the group; each group runs to its
    next stop; the runtime (ms_warp_sched_*) then executes, as the fiber
    scheduler does, the stop of the earliest site (source order) for all
    the lanes waiting there, and lets them go on.  So the warp-level
    instructions, their lanes and their order are the fiber path's
    (emulator.c, run_warp), and so is every count.

Sites: each LD/ST/atomic/collective/__syncthreads gets the fiber build's
site: its file, line and order (the __COUNTER__ value kernel.h's MS_SITE_
takes, reproduced by numbering the macro calls in the same order: a call's
arguments first).  The source is read through warp-compile/kernel.h, which
keeps those calls as calls (on their own lines) for pycparser.

A kernel the compiler cannot take (a switch, a goto, an initialiser list
of other values than zeros, an access in an assignment's target...) gets
no warp-wide build and runs on fibers; the reason is written as a comment
in the output (none of the built-in kernels has one).
"""
import os
import subprocess
import sys

from pycparser import c_ast, c_generator, c_parser

SITE_CALLS = ("LD", "ST", "__syncthreads", "__syncwarp", "__shfl_sync", "__shfl_up_sync",
              "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync",
              "__activemask", "atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicExch",
              "atomicCAS", "atomicAnd", "atomicOr", "atomicXor")


SHUFFLES = {"__shfl_sync": "MS_SHFL_IDX", "__shfl_up_sync": "MS_SHFL_UP",
            "__shfl_down_sync": "MS_SHFL_DOWN", "__shfl_xor_sync": "MS_SHFL_XOR"}
VOTES = {"__ballot_sync": ("MS_VOTE_BALLOT", "unsigned"), "__any_sync": ("MS_VOTE_ANY", "int"),
         "__all_sync": ("MS_VOTE_ALL", "int"), "__activemask": ("MS_VOTE_ACTIVEMASK", "unsigned")}
ATOMICS = {"atomicAdd": "MS_ATOMIC_ADD", "atomicSub": "MS_ATOMIC_SUB", "atomicMin": "MS_ATOMIC_MIN",
           "atomicMax": "MS_ATOMIC_MAX", "atomicExch": "MS_ATOMIC_EXCH",
           "atomicCAS": "MS_ATOMIC_CAS", "atomicAnd": "MS_ATOMIC_AND", "atomicOr": "MS_ATOMIC_OR",
           "atomicXor": "MS_ATOMIC_XOR"}


class Unsupported(Exception):
    pass


def number_sites(node, counter, orders):
    """Numbers the site calls under node as the preprocessor's __COUNTER__
    does in the fiber build: a call's arguments first, then the call."""
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in SITE_CALLS:
        if node.args is not None:
            for a in node.args.exprs:
                number_sites(a, counter, orders)
        orders[id(node)] = counter[0]
        counter[0] += 1
        return
    for _, child in node.children():
        number_sites(child, counter, orders)


class Block:
    def __init__(self, index):
        self.index = index
        self.stmts = []     # ("lane", text) or ("uniform", text)
        self.term = None    # ("goto", b) ("branch", cond, t, f) ("stop", ...) ("barrier", ...) ("exit",)
        # a stop: ("stop", site, kind, size, next block, sub[, (argument,
        # values' array, block after, block fill, block in_place)]): the
        # last for a shuffle of constant arguments (shuffle)


def pure(n):
    """No side effects: no assignment, ++, -- or call anywhere in n."""
    if isinstance(n, (c_ast.Assignment, c_ast.FuncCall)):
        return False
    if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
        return False
    return all(pure(c) for _, c in n.children())


class Printer(c_generator.CGenerator):
    """C text of an expression for lane ms_L."""

    def __init__(self, kernel):
        super().__init__()
        self.k = kernel
        self.typeof_mode = False   # inside a __typeof__: a stop is its value's type

    def visit_ID(self, n):
        return self.k.name_of(n.name)

    def visit_StructRef(self, n):
        if isinstance(n.name, c_ast.ID) and n.name.name == "threadIdx":
            return "ms_warp.tid[%d][ms_L]" % "xyz".index(n.field.name)
        # the field is an ID node: printed as a name, never as a variable
        return self._parenthesize_unless_simple(n.name) + n.type + n.field.name

    def visit_BinaryOp(self, n):
        # a % b by a run-time b: a macro that a branch's condition may
        # evaluate twice (warp.h, MS_WARP_BRANCH_MOD)
        if n.op == "%" and not self.typeof_mode and not isinstance(n.right, c_ast.Constant) \
                and pure(n.left) and pure(n.right):
            return "MS_MOD_ (%s, %s)" % (self.visit(n.left), self.visit(n.right))
        return super().visit_BinaryOp(n)

    def visit_FuncCall(self, n):
        if self.typeof_mode and isinstance(n.name, c_ast.ID):
            if n.name.name == "LD":
                return "(*(MS_VALUE_TYPE_ (%s) *) 0)" % self.visit(n.args.exprs[0])
            if n.name.name in SHUFFLES:
                return "(*(MS_VALUE_TYPE_ (%s) *) 0)" % self.visit(n.args.exprs[1])
            if n.name.name in VOTES:
                return "(*(%s *) 0)" % VOTES[n.name.name][1]
            if n.name.name in ATOMICS:
                return "(*(MS_VALUE_TYPE_ (*(%s)) *) 0)" % self.visit(n.args.exprs[0])
            if n.name.name in self.k.helpers:
                f = self.k.helpers[n.name.name]
                return "(*(__typeof__ (%s) *) 0)" % self.k.type_text(f.decl.type.type)
        if isinstance(n.name, c_ast.ID) and (n.name.name in SITE_CALLS
                                             or n.name.name in self.k.helpers):
            raise Unsupported("%s inside an expression" % n.name.name)
        return super().visit_FuncCall(n)


class Kernel:
    def __init__(self, unit, func, orders, helpers, path):
        self.unit = unit
        self.func = func
        self.orders = orders
        self.helpers = helpers
        self.path = path
        self.blocks = []
        self.cur = self.new_block()
        self.params = {}     # name -> C name
        self.scopes = [{}]   # name -> C name of locals (per lane) and shared arrays
        self.lane_decls = []  # declarations of per-lane arrays, in order
        self.uniform_decls = []
        self.n_names = 0
        self.loops = []      # (continue block, break block)
        self.returns = []    # helpers being inlined: (end block, result variable or None)
        self.sites = {}      # (line, order) -> C name
        self.mod_conds = set()   # branch conditions for MS_WARP_BRANCH_MOD (cond)
        self.temps = set()   # temporaries (per lane) holding values of stops
        self.printer = Printer(self)

    # ----------------------------------------------------------- names
    def fresh(self, base):
        self.n_names += 1
        name = "%s_%d" % (base, self.n_names)
        if base in ("t", "r"):
            self.temps.add(name)
        return name

    def name_of(self, name):
        if name in self.temps:
            return name + "[ms_L]"
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.params:
            return self.params[name]
        if name == "warpSize":
            return "32"
        return name

    def expr(self, e):
        return self.printer.visit(e)

    def cond(self, c):
        """A branch's condition; one that may be evaluated twice (pure)
        with a run-time % is noted for MS_WARP_BRANCH_MOD."""
        text = self.expr(c)
        if "MS_MOD_ (" in text and pure(c):
            self.mod_conds.add(text)
        return text

    def type_text(self, typ):
        return self.printer._generate_type(typ, emit_declname=False)

    # ----------------------------------------------------------- blocks
    def new_block(self):
        b = Block(len(self.blocks))
        self.blocks.append(b)
        return b

    def lane(self, text):
        self.cur.stmts.append(("lane", text))

    def uniform(self, text):
        self.cur.stmts.append(("uniform", text))

    def end(self, term):
        if self.cur.term is None:
            self.cur.term = term

    def goto(self, b):
        self.end(("goto", b))
        self.cur = b

    def site(self, call):
        # the fiber build's __FILE__ (only its base name is ever looked at)
        key = ("traces/kernels/" + os.path.basename(call.coord.file), call.coord.line,
               self.orders[id(call)])
        if key not in self.sites:
            self.sites[key] = "ms_site_%d" % key[2]
        return self.sites[key]

    # ----------------------------------------------------------- expressions
    def lower(self, e):
        """Lowers the stops (LD) inside expression e into blocks; returns e
        with each replaced by the temporary that holds its value."""
        if e is None:
            return None
        if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID):
            name = e.name.name
            if name == "LD":
                x = self.lower(e.args.exprs[0])
                t = self.fresh("t")
                self.lane_decls.append("MS_VALUE_TYPE_ (%s) %s[32];" % (self.expr0(x), t))
                self.lane("ms_warp.addr[ms_L] = (volatile uint8_t *) &(%s);" % self.expr(x))
                self.stop_here(e, "MS_K_LD", "sizeof (%s[0])" % t)
                # each lane's value (warp.h: a whole row or broadcast at once)
                self.uniform("MS_WARP_LOAD (m, %s);" % t)
                return c_ast.ID(t)
            if name in SHUFFLES:
                return self.shuffle(e, SHUFFLES[name])
            if name in VOTES:
                return self.vote(e, VOTES[name])
            if name in ATOMICS:
                return self.atomic(e, ATOMICS[name])
            if name in SITE_CALLS:
                raise Unsupported(name)
            if name in self.helpers:
                return self.inline(e, want_value=True)
        if isinstance(e, c_ast.TernaryOp) and self.has_stop(e.iftrue, e.iffalse):
            t = self.fresh("t")
            self.lane_decls.append("__typeof__ (%s) %s[32];" % (self.expr0(e), t))
            self.branch(e.cond, lambda: self.lane("%s[ms_L] = %s;" % (t, self.expr(self.lower(e.iftrue)))),
                        lambda: self.lane("%s[ms_L] = %s;" % (t, self.expr(self.lower(e.iffalse)))))
            return c_ast.ID(t)
        if isinstance(e, c_ast.BinaryOp) and e.op in ("&&", "||") and self.has_stop(e.right):
            t = self.fresh("t")
            self.lane_decls.append("int %s[32];" % t)
            left = self.lower(e.left)
            self.lane("%s[ms_L] = !!(%s);" % (t, self.expr(left)))
            test = c_ast.ID(t) if e.op == "&&" else c_ast.UnaryOp("!", c_ast.ID(t))
            self.branch(test, lambda: self.lane("%s[ms_L] = !!(%s);" % (t, self.expr(self.lower(e.right)))),
                        None, lowered=True)
            return c_ast.ID(t)
        # other nodes: lower the children in evaluation (source) order
        e = self.copy(e)
        for name, child in e.children():
            if isinstance(child, c_ast.Node) and self.has_stop(child):
                self.set_child(e, name, self.lower(child))
        return e

    def stop_here(self, call, kind, size, sub="0"):
        """Ends the block at a stop of `call`'s site; the next block goes on."""
        nxt = self.new_block()
        self.end(("stop", self.site(call), kind, size, nxt, sub))
        self.cur = nxt

    def plain(self, *exprs):
        """The C text of a collective's other arguments, evaluated (their
        stops and helpers lowered) in order before it."""
        return [self.expr(self.lower(x)) if x is not None else None for x in exprs]

    def shuffle(self, e, kind):
        args = e.args.exprs
        mask, v, arg = args[0], args[1], args[2]
        width = args[3] if len(args) > 3 else None
        val = self.lower(v)   # kernel.h's MS_SHFL_: the value first
        m, a, w = self.plain(mask, arg, width)
        t = self.fresh("t")
        self.lane_decls.append("MS_VALUE_TYPE_ (%s) %s[32];" % (self.expr0(val), t))
        self.lane("%s[ms_L] = %s;" % (t, self.expr(val)))
        lanes_args = ["ms_warp.mask[ms_L] = %s;" % m, "ms_warp.arg[ms_L] = (int) (%s);" % a,
                      "ms_warp.width[ms_L] = (uint8_t) (%s);" % (w or "32")]
        # constants: the full mask, an argument of 0..31, width 32 (nearly
        # every shuffle): a whole warp reads its results here, from the
        # values' own array, by the closed form of the stop (after
        # ms_warp_shfl_counted counts it), and the other groups stop with
        # their values in t (ms_warp_sched_stop_whole)
        a_const = self.const_int(arg)
        whole = (self.const_int(mask) == 0xFFFFFFFF and a_const is not None and a_const < 32
                 and (width is None or self.const_int(width) == 32))
        val_args = ["ms_warp.val[ms_L][0] = 0;",
                    "memcpy (ms_warp.val[ms_L], &%s[ms_L], sizeof %s[0]);" % (t, t)]
        result = "memcpy (&%s[ms_L], &ms_warp.res[ms_L], sizeof %s[0]);" % (t, t)
        if whole:
            # the stop's results come in through the lanes' result words
            # (block nxt); the whole warp's shuffle permutes t in place and
            # goes straight on to what follows (block after).  A group that
            # is not the whole warp stops without its records: when the
            # stop runs, a whole warp met there goes on at block in_place,
            # which shuffles t and goes on after; other lanes go back to
            # block fill, which stores their records and stops as any
            # other shuffle (warp.h, ms_warp_sched_stop_whole)
            site, size = self.site(e), "sizeof (%s[0])" % t
            nxt, after = self.new_block(), self.new_block()
            fill, in_place = self.new_block(), self.new_block()
            fill.stmts = [("lane", text) for text in val_args + lanes_args]
            fill.term = ("stop", site, "MS_K_SHFL", size, nxt, kind)
            in_place.stmts = [("uniform", "ms_warp_shfl_whole (%s, sizeof %s[0], %s, %d);"
                               % (t, t, kind, a_const))]
            in_place.term = ("goto", after)
            self.end(("stop", site, "MS_K_SHFL", size, nxt, kind,
                      (a_const, t, after, fill, in_place)))
            self.cur = nxt
            self.lane(result)
            self.goto(after)
        else:
            for text in lanes_args + val_args:
                self.lane(text)
            self.stop_here(e, "MS_K_SHFL", "sizeof (%s[0])" % t, kind)
            self.lane(result)
        return c_ast.ID(t)

    def vote(self, e, spec):
        kind, typ = spec
        args = e.args.exprs if e.args is not None else []
        if kind == "MS_VOTE_ACTIVEMASK":
            m, p = "0u", "1"
        else:
            m, p = self.plain(args[0], args[1])
        t = self.fresh("t")
        self.lane_decls.append("%s %s[32];" % (typ, t))
        self.lane("ms_warp.mask[ms_L] = ms_warp.lanes[ms_L].mask = %s;" % m)
        self.lane("ms_warp.lanes[ms_L].sub = (uint8_t) %s;" % kind)
        self.lane("ms_warp.lanes[ms_L].arg = !!(%s);" % p)
        self.stop_here(e, "MS_K_VOTE", "0", kind)
        self.lane("%s[ms_L] = (%s) ms_warp.lanes[ms_L].res[0];" % (t, typ))
        return c_ast.ID(t)

    def syncwarp(self, e):
        args = e.args.exprs if e.args is not None else []
        m = self.plain(args[0])[0] if args else None
        self.lane("ms_warp.mask[ms_L] = 0xffffffffu%s;" % (" & (%s)" % m if m else ""))
        self.stop_here(e, "MS_K_SYNCWARP", "0")

    def atomic(self, e, op):
        args = e.args.exprs
        if op == "MS_ATOMIC_CAS":
            p, c, v = args
        else:
            (p, v), c = args, None
        # kernel.h's MS_ATOMIC_: the value and compare value, then the address
        pl = self.lower(p) if self.has_stop(p) else p
        vl = self.lower(v)
        cl = self.lower(c) if c is not None else c_ast.Constant("int", "0")
        t = self.fresh("t")
        tc = self.fresh("t")
        self.lane_decls.append("MS_VALUE_TYPE_ (*(%s)) %s[32];" % (self.expr0(pl), t))
        self.lane_decls.append("MS_VALUE_TYPE_ (*(%s)) %s[32];" % (self.expr0(pl), tc))
        self.lane("%s[ms_L] = %s;" % (t, self.expr(vl)))
        self.lane("%s[ms_L] = %s;" % (tc, self.expr(cl)))
        self.lane("ms_warp.addr[ms_L] = (volatile uint8_t *) (%s);" % self.expr(pl))
        self.lane("memcpy (ms_warp.val[ms_L], &%s[ms_L], sizeof %s[0]);" % (t, t))
        self.lane("memcpy (ms_warp.lanes[ms_L].cmp, &%s[ms_L], sizeof %s[0]);" % (tc, tc))
        self.lane("ms_warp.lanes[ms_L].sub = (uint8_t) %s;" % op)
        self.lane("ms_warp.lanes[ms_L].num = (uint8_t) MS_NUM_KIND_ (%s[ms_L]);" % t)
        self.stop_here(e, "MS_K_ATOMIC", "sizeof (%s[0])" % t)
        self.lane("memcpy (&%s[ms_L], ms_warp.lanes[ms_L].res, sizeof %s[0]);" % (t, t))
        return c_ast.ID(t)

    def expr0(self, e):
        """The C text of e for lane 0, in a __typeof__."""
        self.printer.typeof_mode = True
        try:
            return self.expr(e).replace("[ms_L]", "[0]")
        finally:
            self.printer.typeof_mode = False

    def has_stop(self, *nodes):
        for n in nodes:
            if n is None:
                continue
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) \
                    and (n.name.name in SITE_CALLS or n.name.name in self.helpers):
                return True
            for _, c in n.children():
                if self.has_stop(c):
                    return True
        return False

    @staticmethod
    def copy(n):
        import copy
        return copy.copy(n)

    @staticmethod
    def set_child(node, name, value):
        if "[" in name:
            field, idx = name[:-1].split("[")
            lst = list(getattr(node, field))
            lst[int(idx)] = value
            setattr(node, field, lst)
        else:
            setattr(node, name, value)

    # ----------------------------------------------------------- stop-free statements
    PLAIN_STMTS = (c_ast.Compound, c_ast.Decl, c_ast.DeclList, c_ast.If, c_ast.For, c_ast.While,
                   c_ast.DoWhile, c_ast.Break, c_ast.Continue, c_ast.EmptyStatement,
                   c_ast.Assignment, c_ast.UnaryOp, c_ast.FuncCall, c_ast.Cast, c_ast.ExprList)

    def plain_ok(self, s, loops=0):
        """Whether statement s can run as plain C for each lane on its own,
        inside the group's loop over its lanes: no stop in it (nothing the
        scheduler sees happens in it, so running it lane after lane is
        running it lane by lane), no return, no break or continue that
        leaves it, no statement the compiler does not take."""
        if s is None:
            return True
        if not isinstance(s, self.PLAIN_STMTS) or self.has_stop(s):
            return False
        if isinstance(s, (c_ast.Break, c_ast.Continue)):
            return loops > 0
        if isinstance(s, c_ast.Decl):
            return "static" not in (s.storage or []) \
                and (not isinstance(s.init, c_ast.InitList) or self.all_zero(s.init))
        inner = loops + isinstance(s, (c_ast.For, c_ast.While, c_ast.DoWhile))
        if isinstance(s, c_ast.Compound):
            return all(self.plain_ok(i, loops) for i in s.block_items or [])
        if isinstance(s, c_ast.DeclList):
            return all(self.plain_ok(d, loops) for d in s.decls)
        if isinstance(s, c_ast.If):
            return self.plain_ok(s.iftrue, loops) and self.plain_ok(s.iffalse, loops)
        if isinstance(s, c_ast.For):
            return self.plain_ok(s.init, inner) and self.plain_ok(s.stmt, inner)
        if isinstance(s, (c_ast.While, c_ast.DoWhile)):
            return self.plain_ok(s.stmt, inner)
        return True   # an expression

    def plain_stmt(self, s):
        """The C text of a plain_ok statement for lane ms_L."""
        if s is None:
            return ";"
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            text = "{ %s }" % " ".join(self.plain_stmt(i) for i in s.block_items or [])
            self.scopes.pop()
            return text
        if isinstance(s, c_ast.Decl):
            return self.lane_var(s) or ";"
        if isinstance(s, c_ast.DeclList):
            return " ".join(self.plain_stmt(d) for d in s.decls)
        if isinstance(s, c_ast.If):
            return "if (%s) { %s } else { %s }" % (self.expr(s.cond), self.plain_stmt(s.iftrue),
                                                   self.plain_stmt(s.iffalse))
        if isinstance(s, c_ast.For):
            self.scopes.append({})
            init = self.plain_stmt(s.init) if isinstance(s.init, (c_ast.Decl, c_ast.DeclList)) \
                else "%s;" % self.expr(s.init) if s.init is not None else ""
            text = "{ %s for (; %s; %s) { %s } }" % (
                init, self.expr(s.cond) if s.cond is not None else "",
                self.expr(s.next) if s.next is not None else "", self.plain_stmt(s.stmt))
            self.scopes.pop()
            return text
        if isinstance(s, c_ast.While):
            return "while (%s) { %s }" % (self.expr(s.cond), self.plain_stmt(s.stmt))
        if isinstance(s, c_ast.DoWhile):
            return "do { %s } while (%s);" % (self.plain_stmt(s.stmt), self.expr(s.cond))
        if isinstance(s, c_ast.Break):
            return "break;"
        if isinstance(s, c_ast.Continue):
            return "continue;"
        if isinstance(s, c_ast.EmptyStatement):
            return ";"
        return "%s;" % self.expr(s)

    # ----------------------------------------------------------- unrolled loops
    MAX_UNROLL = 32

    @classmethod
    def const_int(cls, e):
        """The value of an integer constant expression, or None."""
        if isinstance(e, c_ast.Constant) and e.type in ("int", "unsigned int", "long int",
                                                       "unsigned long int"):
            try:
                return int(e.value.rstrip("uUlL"), 0)
            except ValueError:
                return None
        if isinstance(e, c_ast.BinaryOp):
            a, b = cls.const_int(e.left), cls.const_int(e.right)
            if a is None or b is None or a < 0 or b < 0:
                return None
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            if e.op in ("/", "%") and b > 0:
                return a // b if e.op == "/" else a % b
            if e.op == "<<" and b < 32:
                return a << b
            if e.op == ">>" and b < 32:
                return a >> b
        return None

    def unroll_values(self, s):
        """For `for (int v = C0; v < C1; v += C2) body` with constants C,
        a body that never changes v, and no break or continue of this loop:
        (v, its type, the values it takes), if they are at most MAX_UNROLL;
        else None.  The body's stops are the loop's, in the same order, so
        each lane runs the same instructions either way."""
        init = s.init
        if not (isinstance(init, c_ast.DeclList) and len(init.decls) == 1):
            return None
        d = init.decls[0]
        if not isinstance(d.type, c_ast.TypeDecl) or "static" in (d.storage or []):
            return None
        var, c0 = d.name, self.const_int(d.init)
        c = s.cond
        if c0 is None or not (isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=")
                              and isinstance(c.left, c_ast.ID) and c.left.name == var):
            return None
        c1 = self.const_int(c.right)
        n = s.next
        if isinstance(n, c_ast.UnaryOp) and n.op in ("p++", "++") \
                and isinstance(n.expr, c_ast.ID) and n.expr.name == var:
            step = 1
        elif isinstance(n, c_ast.Assignment) and n.op == "+=" \
                and isinstance(n.lvalue, c_ast.ID) and n.lvalue.name == var:
            step = self.const_int(n.rvalue)
        else:
            return None
        if c1 is None or not step or step <= 0:
            return None
        values = list(range(c0, c1 + (1 if c.op == "<=" else 0), step))
        if not 0 < len(values) <= self.MAX_UNROLL or self.touches(s.stmt, var, 0):
            return None
        return var, self.type_text(self.unconst(d.type)), values

    def touches(self, n, var, loops):
        """Whether n changes var (an assignment, ++, --, its address) or has
        a break or continue of the loop around it (loops: loops between)."""
        if n is None:
            return False
        if isinstance(n, (c_ast.Break, c_ast.Continue)) and loops == 0:
            return True
        if isinstance(n, c_ast.Decl) and n.name == var:
            return True   # shadowed: not worth telling apart
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) \
                and n.lvalue.name == var:
            return True
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "p++", "--", "p--", "&") \
                and isinstance(n.expr, c_ast.ID) and n.expr.name == var:
            return True
        inner = loops + isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile))
        return any(self.touches(c, var, inner) for _, c in n.children())

    # ----------------------------------------------------------- control flow
    def branch(self, cond, then_fn, else_fn, lowered=False):
        c = cond if lowered else self.lower(cond)
        then_b = self.new_block()
        join = self.new_block()
        else_b = self.new_block() if else_fn else join
        self.end(("branch", self.cond(c), then_b, else_b))
        self.cur = then_b
        then_fn()
        self.end(("goto", join))
        if else_fn:
            self.cur = else_b
            else_fn()
            self.end(("goto", join))
        self.cur = join

    def stmt(self, s):
        if s is None:
            return
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            for item in s.block_items or []:
                self.stmt(item)
            self.scopes.pop()
        elif isinstance(s, (c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile)) \
                and self.plain_ok(s):
            # no stop inside: the whole statement in the lanes' loop, where
            # gcc sees (and unrolls) its loops
            self.lane(self.plain_stmt(s))
        elif isinstance(s, c_ast.Decl):
            self.decl(s)
        elif isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.decl(d)
        elif isinstance(s, c_ast.If):
            self.branch(s.cond, lambda: self.stmt(s.iftrue),
                        (lambda: self.stmt(s.iffalse)) if s.iffalse is not None else None)
        elif isinstance(s, c_ast.For) and (unroll := self.unroll_values(s)) is not None:
            # a loop of a few constant steps with stops inside (a tile's
            # rows): one copy of the body per step, its counter a constant
            var, typ, values = unroll
            for v in values:
                self.scopes.append({var: "((%s) %d)" % (typ, v)})
                self.stmt(s.stmt)
                self.scopes.pop()
        elif isinstance(s, c_ast.For):
            self.scopes.append({})
            self.stmt(s.init)
            self.loop(s.cond, s.stmt, s.next)
            self.scopes.pop()
        elif isinstance(s, c_ast.While):
            self.loop(s.cond, s.stmt, None)
        elif isinstance(s, c_ast.DoWhile):
            body = self.new_block()
            cont = self.new_block()
            exit_b = self.new_block()
            self.goto(body)
            self.loops.append((cont, exit_b))
            self.stmt(s.stmt)
            self.loops.pop()
            self.goto(cont)
            c = self.lower(s.cond)
            self.end(("branch", self.cond(c), body, exit_b))
            self.cur = exit_b
        elif isinstance(s, c_ast.Break):
            self.end(("goto", self.loops[-1][1]))
            self.cur = self.new_block()   # unreachable
        elif isinstance(s, c_ast.Continue):
            self.end(("goto", self.loops[-1][0]))
            self.cur = self.new_block()
        elif isinstance(s, c_ast.Return):
            if self.returns:
                end_b, result = self.returns[-1]
                if s.expr is not None:
                    v = self.lower(s.expr)
                    self.lane("%s[ms_L] = %s;" % (result, self.expr(v)))
                self.end(("goto", end_b))
            else:
                self.end(("exit",))
            self.cur = self.new_block()
        elif isinstance(s, c_ast.EmptyStatement):
            pass
        elif isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) \
                and s.name.name == "ST":
            self.store(s)
        elif isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) \
                and s.name.name == "__syncwarp":
            self.syncwarp(s)
        elif isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) \
                and s.name.name == "__syncthreads":
            nxt = self.new_block()
            self.end(("barrier", self.site(s), nxt))
            self.cur = nxt
        elif isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) \
                and s.name.name in self.helpers:
            self.inline(s, want_value=False)
        elif isinstance(s, (c_ast.Assignment, c_ast.UnaryOp, c_ast.FuncCall, c_ast.Cast,
                            c_ast.ExprList)):
            if isinstance(s, c_ast.Assignment) and self.has_stop(s.lvalue):
                raise Unsupported("an access in an assignment's target")
            e = self.lower(s)
            if not (isinstance(e, c_ast.ID) and e.name in self.temps):   # a result unused
                self.lane("%s;" % self.expr(e))
        else:
            raise Unsupported(type(s).__name__)

    def loop(self, cond, body, nxt):
        head = self.new_block()
        cont = self.new_block()
        exit_b = self.new_block()
        self.goto(head)
        c = self.lower(cond) if cond is not None else c_ast.Constant("int", "1")
        body_b = self.new_block()
        self.end(("branch", self.cond(c), body_b, exit_b))
        self.cur = body_b
        self.loops.append((cont, exit_b))
        self.stmt(body)
        self.loops.pop()
        self.goto(cont)
        if nxt is not None:
            e = self.lower(nxt)
            self.lane("%s;" % self.expr(e))
        self.end(("goto", head))
        self.cur = exit_b

    def store(self, s):
        x, v = s.args.exprs
        # the fiber build's ST evaluates the value, then the address
        val = self.lower(v)
        t = self.fresh("t")
        xl = self.lower(x)
        self.lane_decls.append("MS_VALUE_TYPE_ (%s) %s[32];" % (self.expr0(xl), t))
        self.lane("%s[ms_L] = %s;" % (t, self.expr(val)))
        self.lane("ms_warp.addr[ms_L] = (volatile uint8_t *) &(%s);" % self.expr(xl))
        self.lane("memcpy (ms_warp.val[ms_L], &%s[ms_L], sizeof %s[0]);" % (t, t))
        self.stop_here(s, "MS_K_ST", "sizeof (%s[0])" % t)

    def decl(self, d):
        if "static" in (d.storage or []):
            # SHARED_ARRAY: a pointer to the block's array, set where declared
            if not isinstance(d.type, c_ast.ArrayDecl):
                raise Unsupported("a static local that is not a shared array")
            cname = self.fresh("s_" + d.name)
            elem = self.type_text(d.type.type)
            whole = self.type_text(d.type)
            self.uniform_decls.append("__typeof__ (%s) *%s = NULL;" % (elem, cname))
            self.scopes[-1][d.name] = cname
            self.uniform("%s = (__typeof__ (%s) *) MS_SHARED_ (sizeof (%s), __alignof__ (%s));"
                         % (cname, elem, whole, whole))
            return
        text = self.lane_var(d)
        if text:
            self.lane(text)

    def lane_var(self, d):
        """Declares local d as an array of lane values; the C text that
        initialises a lane's (None: no initialiser)."""
        cname = self.fresh("v_" + d.name)
        typ = self.type_text(self.unconst(d.type))
        if isinstance(d.init, c_ast.InitList):
            # an array of zeros (= {0}, {{0}}...): the only list taken
            if not self.all_zero(d.init):
                raise Unsupported("an initialiser list of other values than zeros")
            self.lane_decls.append("__typeof__ (%s) %s[32];" % (typ, cname))
            self.scopes[-1][d.name] = cname + "[ms_L]"
            return "memset (&%s[ms_L], 0, sizeof %s[0]);" % (cname, cname)
        init = self.lower(d.init) if d.init is not None else None
        self.lane_decls.append("__typeof__ (%s) %s[32];" % (typ, cname))
        self.scopes[-1][d.name] = cname + "[ms_L]"
        if init is not None:
            return "%s[ms_L] = %s;" % (cname, self.expr(init))
        return None

    @staticmethod
    def unconst(typ):
        """typ without its top-level const: a lane's variable is assigned
        once per lane, not initialised."""
        import copy
        typ = copy.deepcopy(typ)
        node = typ
        while isinstance(node, c_ast.ArrayDecl):
            node = node.type
        if isinstance(node, (c_ast.TypeDecl, c_ast.PtrDecl)):
            node.quals = [q for q in node.quals if q != "const"]
        return typ

    def all_zero(self, init):
        if isinstance(init, c_ast.InitList):
            return all(self.all_zero(e) for e in init.exprs)
        return isinstance(init, c_ast.Constant) and init.value.rstrip("fFuUlL") in ("0", "0.0", "0.")

    def inline(self, call, want_value):
        f = self.helpers[call.name.name]
        args = call.args.exprs if call.args is not None else []
        params = f.decl.type.args.params if f.decl.type.args is not None else []
        params = [p for p in params if not (isinstance(p, c_ast.Typename))]
        values = [self.lower(a) for a in args]
        scope = {}
        for p, v in zip(params, values):
            cname = self.fresh("v_" + p.name)
            self.lane_decls.append("__typeof__ (%s) %s[32];" % (self.type_text(p.type), cname))
            self.lane("%s[ms_L] = %s;" % (cname, self.expr(v)))
            scope[p.name] = cname + "[ms_L]"
        result = None
        ret_type = f.decl.type.type
        if want_value:
            result = self.fresh("r")
            self.lane_decls.append("__typeof__ (%s) %s[32];" % (self.type_text(ret_type), result))
        end_b = self.new_block()
        saved_scopes, self.scopes = self.scopes, [scope]
        saved_loops, self.loops = self.loops, []
        self.returns.append((end_b, result))
        self.stmt(f.body)
        self.returns.pop()
        self.scopes, self.loops = saved_scopes, saved_loops
        self.goto(end_b)
        return c_ast.ID(result) if want_value else None

    # ----------------------------------------------------------- output
    def compile(self):
        fdecl = self.func.decl.type
        for p in (fdecl.args.params if fdecl.args else []):
            if isinstance(p, c_ast.Typename):
                continue
            self.params[p.name] = "p_" + p.name
        self.stmt(self.func.body)
        self.end(("exit",))

    def fold(self):
        """Tail duplication: a block that goes on to a small block without
        a stop (a loop's increment, its test) takes that block's statements
        and end, so they run in its loop over the lanes."""
        for b in self.blocks:
            for _ in range(8):
                if b.term is None or b.term[0] != "goto":
                    break
                x = b.term[1]
                if x is b or len(x.stmts) > 4 or any(k != "lane" for k, _ in x.stmts):
                    break
                b.stmts = b.stmts + x.stmts
                b.term = x.term or ("exit",)

    def emit(self):
        self.fold()
        out = []
        fdecl = self.func.decl.type
        params = [p for p in (fdecl.args.params if fdecl.args else [])
                  if not isinstance(p, c_ast.Typename)]
        plist = ", ".join("__typeof__ (%s) p_%s" % (self.type_text(p.type), p.name)
                          for p in params) or "void"
        # kernel.h's MS_NO_UBSAN (a crash test's null pointer, on purpose)
        attr = ("MS_NO_UBSAN " if "register" in (self.func.decl.storage or []) else "")
        out.append("static %sMS_CPU_CLONES void\nms_warp_kernel_%s (%s)\n{"
                   % (attr, self.func.decl.name, plist))
        for p in params:
            out.append("  (void) p_%s;" % p.name)
        for d in self.uniform_decls:
            out.append("  " + d)
        for d in self.lane_decls:
            out.append("  " + d)
        out.append("  MsWarpSched S;")
        out.append("  int pc;")
        out.append("  uint32_t m;")
        out.append("  ms_warp_sched_begin (&S);")
        out.append("  while (ms_warp_sched_next (&S, &pc, &m))")
        out.append("    {")
        out.append("      switch (pc)")
        out.append("        {")
        for b in self.blocks:
            out.append("        case %d: goto B%d;" % (b.index, b.index))
        out.append("        default: __builtin_unreachable ();")
        out.append("        }")
        for b in self.blocks:
            out.append("    B%d:" % b.index)
            out.extend(self.emit_block(b))
        out.append("    }")
        out.append("}")
        return "\n".join(out)

    def emit_block(self, b):
        out = []
        term = b.term or ("exit",)
        stmts = list(b.stmts)
        cond = None
        if term[0] == "branch":
            cond = term[1]
            out.append("      {")
            out.append("      uint32_t ms_t = 0;")
        # consecutive lane statements run in one loop over the group's lanes
        runs = []
        for kind, text in stmts:
            if kind == "lane" and runs and runs[-1][0] == "lane":
                runs[-1][1].append(text)
            else:
                runs.append((kind, [text]))
        if cond is not None and cond in self.mod_conds:
            # its own loops, a mask's first, the division's on a miss
            runs.append(("branch_mod", []))
        elif cond is not None:
            # the last loop also sets the branch's mask (warp.h, MS_WARP_BRANCH)
            if runs and runs[-1][0] == "lane":
                runs[-1] = ("branch", runs[-1][1])
            else:
                runs.append(("branch", []))
        for kind, texts in runs:
            if kind == "uniform":
                out.extend("      " + t for t in texts)
            elif kind == "branch_mod":
                fast = cond.replace("MS_MOD_ (", "MS_MOD_P2_ (")
                out.append("      MS_WARP_BRANCH_MOD (m, ms_L, ms_t, (%s)," % fast)
                out.append("                          (%s));" % cond)
            else:
                if kind == "branch":
                    out.append("      MS_WARP_BRANCH (m, ms_L, ms_t, (%s)," % cond)
                else:
                    out.append("      MS_WARP_LANES (m, ms_L,")
                out.append("        {")
                out.extend("          " + t for t in texts)
                out.append("        });")
        if term[0] == "branch":
            t, f = term[2], term[3]
            fterm = f.term or ("exit",)
            if f.stmts or fterm[0] != "exit":
                out.append("      uint32_t ms_f = m & ~ms_t;")
            if not f.stmts and fterm[0] == "barrier":
                # the lanes that do not take the branch go straight to a
                # barrier (`if (c) { ... } __syncthreads ();`): they wait
                # there now, and the taken lanes, the only group left to
                # run, do their accesses at once instead of as stops
                # (warp.h: ms_warp_sched_access)
                out.append("      if (ms_t && ms_f)")
                out.append("        ms_warp_sched_barrier (&S, &%s, ms_f, %d);"
                           % (fterm[1], fterm[2].index))
            elif not f.stmts and fterm[0] == "exit":
                pass   # the lanes that do not take it end here: no group to run
            else:
                out.append("      if (ms_t && ms_f)")
                out.append("        ms_warp_sched_push (&S, %d, ms_f);" % f.index)
            out.append("      if (ms_t)")
            out.append("        {")
            out.append("          m = ms_t;")
            out.append("          goto B%d;" % t.index)
            out.append("        }")
            out.append("      goto B%d;" % f.index)
            out.append("      }")
        elif term[0] == "goto":
            out.append("      goto B%d;" % term[1].index)
        elif term[0] == "stop":
            if len(term) > 6:
                # a shuffle of constant arguments: a whole warp runs it here,
                # in place on its values (warp.h's ms_warp_shfl_whole, the
                # fiber path's closed form MS_SHFL_SOURCE)
                a_const, t, after, fill, in_place = term[6]
                out.append("      if (m == 0xffffffffu && ms_warp_shfl_counted (&%s, %s))"
                           % (term[1], term[3]))
                out.append("        {")
                out.append("          ms_warp_shfl_whole (%s, sizeof %s[0], %s, %d);"
                           % (t, t, term[5], a_const))
                out.append("          goto B%d;" % after.index)
                out.append("        }")
                # another group stops with its values left in t (shuffle)
                out.append("      ms_warp_sched_stop_whole (&S, &%s, %s, m, %d, %d);"
                           % (term[1], term[3], fill.index, in_place.index))
                out.append("      continue;")
                return out
            if term[2] in ("MS_K_LD", "MS_K_ST", "MS_K_ATOMIC"):
                # a converged warp's access runs here and goes straight on
                out.append("      if (ms_warp_sched_access (&S, &%s, %s, %s, m, %d))"
                           % (term[1], term[2], term[3], term[4].index))
                out.append("        goto B%d;" % term[4].index)
            else:
                out.append("      ms_warp_sched_stop (&S, &%s, %s, %s, %s, m, %d);"
                           % (term[1], term[2], term[3], term[5], term[4].index))
            out.append("      continue;")
        elif term[0] == "barrier":
            out.append("      ms_warp_sched_barrier (&S, &%s, m, %d);" % (term[1], term[2].index))
            out.append("      continue;")
        else:
            out.append("      continue;")
        return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    cpp = os.environ.get("CPP", "cpp")
    here = os.path.dirname(os.path.abspath(__file__))
    text = subprocess.run(cpp.split() + ["-x", "c", "-I", here, src], check=True, capture_output=True,
                          text=True).stdout
    unit = c_parser.CParser().parse(text, src)
    orders = {}
    number_sites(unit, [0], orders)
    funcs = {f.decl.name: f for f in unit.ext if isinstance(f, c_ast.FuncDef)}
    helpers = {n: f for n, f in funcs.items() if "static" in (f.decl.storage or [])}
    out = ["/* %s - GENERATED by sim/emulator/warp-compile/warp-compile.py from %s:"
           % (os.path.basename(dst), os.path.basename(src)),
           " * the warp-wide build of its kernels (sim/emulator/warp.h).  Do not edit. */",
           '#include "config.h"', "#define MS_KERNEL_SOURCE 1", '#include "kernel.h"',
           '#include "warp.h"', "#include <string.h>", "",
           "/* A whole warp's loop that sets a lane array to a constant is a loop,",
           " * not a memset: GCC made those `rep stos`, which starts slowly for 128",
           " * bytes (bench --kernel reduce_shfl 2^22, alternating, least of 30:",
           " * 0.0527 -> 0.0506 s).  Clang has no such pass.  And functions on",
           " * 64-byte, loops on 32-byte boundaries, as emulator.c's (its comment). */",
           "#if defined(__GNUC__) && !defined(__clang__)",
           '#pragma GCC optimize ("no-tree-loop-distribute-patterns", "align-functions=64", "align-loops=32")',
           "#endif", ""]
    # the source's own types (structs, typedefs), which its kernels use
    fake = os.path.join(here, "kernel.h")
    for item in unit.ext:
        if isinstance(item, (c_ast.Typedef, c_ast.Decl)) and not isinstance(item, c_ast.FuncDef) \
                and item.coord is not None and os.path.abspath(item.coord.file) != fake \
                and not isinstance(getattr(item, "type", None), c_ast.FuncDecl) \
                and (isinstance(item, c_ast.Typedef) or "extern" not in (item.storage or [])):
            out.append(c_generator.CGenerator().visit(item) + ";")
    out.append("")
    all_sites = {}
    bodies = []
    entries = []
    compiled = {}   # kernel -> its warp-wide function's text, or the reason it has none
    used = set()    # kernels an emitted entry launches
    kernel_sites = {}
    for name, f in funcs.items():
        if not name.startswith("__ms_entry_"):
            continue
        entry = name[len("__ms_entry_"):]
        # the kernels the entry launches (MS_LAUNCH: a call of a kernel)
        launches = []

        def find_launches(n):
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) \
                    and n.name.name in funcs and "inline" in (funcs[n.name.name].decl.funcspec or []):
                launches.append(n)
            for _, c in n.children():
                find_launches(c)
        find_launches(f.body)
        why = None if launches else "it launches no kernel"
        for call in launches:
            kname = call.name.name
            if kname not in compiled:
                k = Kernel(unit, funcs[kname], orders, helpers, src)
                try:
                    k.compile()
                    compiled[kname] = (True, k.emit())
                    kernel_sites[kname] = k.sites
                except Unsupported as e:
                    compiled[kname] = (False, "%s: %s" % (kname, e))
            if not compiled[kname][0] and why is None:
                why = compiled[kname][1]
        if why is not None:
            bodies.append("/* %s: not warp-wide (%s) */" % (entry, why))
            continue
        for call in launches:
            used.add(call.name.name)
            call.name = c_ast.ID("ms_warp_kernel_" + call.name.name)
        body = c_generator.CGenerator().visit(f.body)
        entries.append((entry, "void ms_warp_entry_%s (const MsLaunchArgs *L);\n"
                        "void\nms_warp_entry_%s (const MsLaunchArgs *L)\n%s" % (entry, entry, body)))
    for kname, (ok, text) in compiled.items():
        if ok and kname in used:
            bodies.append(text)
            for key, cname in kernel_sites[kname].items():
                all_sites[cname] = key
    bodies.extend(text for _, text in entries)
    entries = [e for e, _ in entries]
    for cname, (file, line, order) in sorted(all_sites.items(), key=lambda kv: kv[1][2]):
        out.append('static MsSite %s = { "%s", %d, %d, -1 };' % (cname, file, line, order))
    out.append("")
    out.extend(b + "\n" for b in bodies)
    tag = os.path.splitext(os.path.basename(src))[0].replace("-", "_")
    out.append("const MsWarpEntry ms_warp_entries_%s[] = {" % tag)
    for e in entries:
        out.append('  { "%s", ms_warp_entry_%s },' % (e, e))
    out.append("  { NULL, NULL },")
    out.append("};")
    tmp = dst + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(out) + "\n")
    os.replace(tmp, dst)


if __name__ == "__main__":
    main()
