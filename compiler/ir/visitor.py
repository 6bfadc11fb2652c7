"""Typed visitors over the IR: one method per node kind, so a pass that forgets a kind is a type
error, not an `Unsupported` at run time.

A pass subclasses ``ExprVisitor[C, T]`` and/or ``StmtVisitor[C, T]`` (``C`` the context each
call passes down, e.g. the names in scope; ``T`` what a visit returns) and implements one method
per node class (``const``, ``binary``, ... / ``kill``, ``protect``, ...), each taking the node
and the context. Every method is abstract:
mypy refuses to instantiate a subclass that leaves one out ("Cannot instantiate abstract class
... with abstract attribute ..."), and so does Python at run time (``TypeError``). A new IR node
is added to the ``Expr`` / ``Stmt`` unions in ``nodes.py`` and here, and every pass then fails to
type-check until it handles it (tests/test_visitor.py shows it, and checks that the methods here
match the unions one for one).

``visit_expr(e, ctx)`` / ``visit_stmt(s, ctx)`` dispatch on the node's exact class through a
table built once per visitor class (no ``isinstance`` chain).
"""

from __future__ import annotations

import keyword
import re
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from maf.compiler.ir.nodes import (
    EXPR_NODES,
    Announce,
    Binary,
    Block,
    Builtin,
    Call,
    CallAbility,
    CancelVote,
    Const,
    Convert,
    Delayed,
    Each,
    Expr,
    Guard,
    If,
    In,
    InSet,
    Kill,
    MiddleSwap,
    ModeratorChoice,
    Protect,
    Quant,
    Remember,
    Revive,
    Seen,
    SetMark,
    SkipNight,
    Steal,
    Stmt,
    Sym,
    Tell,
    Trial,
    Unary,
    Var,
    Visit,
    Weight,
    WinNow,
)

C = TypeVar("C")
T = TypeVar("T")


STMT_NODES: tuple[type, ...] = typing.get_args(Stmt)


def method_name(cls: type) -> str:
    """The visitor method of a node class: ``CallAbility`` -> ``call_ability``; a Python keyword
    takes a trailing ``_`` (``In`` -> ``in_``, ``If`` -> ``if_``)."""
    name = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
    return name + "_" if keyword.iskeyword(name) else name


def _table(visitor: type, nodes: tuple[type, ...]) -> dict[type, Callable[..., Any]]:
    return {cls: getattr(visitor, method_name(cls)) for cls in nodes}


class ExprVisitor(ABC, Generic[C, T]):
    """One method per expression kind (``nodes.Expr``)."""

    _expr_table: ClassVar[dict[type, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._expr_table = _table(cls, EXPR_NODES)

    def visit_expr(self, e: Expr, ctx: C) -> T:
        result: T = self._expr_table[type(e)](self, e, ctx)
        return result

    @abstractmethod
    def const(self, e: Const, ctx: C) -> T: ...
    @abstractmethod
    def var(self, e: Var, ctx: C) -> T: ...
    @abstractmethod
    def builtin(self, e: Builtin, ctx: C) -> T: ...
    @abstractmethod
    def sym(self, e: Sym, ctx: C) -> T: ...
    @abstractmethod
    def call(self, e: Call, ctx: C) -> T: ...
    @abstractmethod
    def unary(self, e: Unary, ctx: C) -> T: ...
    @abstractmethod
    def binary(self, e: Binary, ctx: C) -> T: ...
    @abstractmethod
    def in_(self, e: In, ctx: C) -> T: ...
    @abstractmethod
    def in_set(self, e: InSet, ctx: C) -> T: ...
    @abstractmethod
    def quant(self, e: Quant, ctx: C) -> T: ...

    @abstractmethod
    def seen(self, e: Seen, ctx: C) -> T: ...


class StmtVisitor(ABC, Generic[C, T]):
    """One method per statement kind (``nodes.Stmt``)."""

    _stmt_table: ClassVar[dict[type, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._stmt_table = _table(cls, STMT_NODES)

    def visit_stmt(self, s: Stmt, ctx: C) -> T:
        result: T = self._stmt_table[type(s)](self, s, ctx)
        return result

    @abstractmethod
    def kill(self, s: Kill, ctx: C) -> T: ...
    @abstractmethod
    def protect(self, s: Protect, ctx: C) -> T: ...
    @abstractmethod
    def guard(self, s: Guard, ctx: C) -> T: ...
    @abstractmethod
    def set_mark(self, s: SetMark, ctx: C) -> T: ...
    @abstractmethod
    def convert(self, s: Convert, ctx: C) -> T: ...
    @abstractmethod
    def tell(self, s: Tell, ctx: C) -> T: ...
    @abstractmethod
    def announce(self, s: Announce, ctx: C) -> T: ...
    @abstractmethod
    def remember(self, s: Remember, ctx: C) -> T: ...
    @abstractmethod
    def trial(self, s: Trial, ctx: C) -> T: ...
    @abstractmethod
    def steal(self, s: Steal, ctx: C) -> T: ...
    @abstractmethod
    def revive(self, s: Revive, ctx: C) -> T: ...
    @abstractmethod
    def weight(self, s: Weight, ctx: C) -> T: ...
    @abstractmethod
    def win_now(self, s: WinNow, ctx: C) -> T: ...
    @abstractmethod
    def skip_night(self, s: SkipNight, ctx: C) -> T: ...
    @abstractmethod
    def cancel_vote(self, s: CancelVote, ctx: C) -> T: ...
    @abstractmethod
    def each(self, s: Each, ctx: C) -> T: ...
    @abstractmethod
    def if_(self, s: If, ctx: C) -> T: ...
    @abstractmethod
    def call_ability(self, s: CallAbility, ctx: C) -> T: ...
    @abstractmethod
    def block(self, s: Block, ctx: C) -> T: ...
    @abstractmethod
    def visit(self, s: Visit, ctx: C) -> T: ...
    @abstractmethod
    def delayed(self, s: Delayed, ctx: C) -> T: ...
    @abstractmethod
    def middle_swap(self, s: MiddleSwap, ctx: C) -> T: ...

    @abstractmethod
    def moderator_choice(self, s: ModeratorChoice, ctx: C) -> T: ...
