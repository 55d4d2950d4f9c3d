"""A base dos corretores dos exercícios: um exercício é *dado*, o laço é escrito uma vez só.

Um exercício (:class:`Exercicio`) se declara com:

- os **casos** (:class:`Caso`): entradas pequenas, com uma descrição em português;
- a **resposta certa** de cada caso (uma função das entradas, em geral do núcleo);
- os **erros clássicos** (:class:`Erro`): cada um sabe construir a resposta errada a partir das
  entradas (ou reconhecê-la por uma condição) e explica, em português, o que deu errado e onde olhar;
- a mensagem de **acerto**.

:func:`corrigir` roda a função do estudante em cada caso (com cópias das entradas, avisos numéricos
silenciados e um limite de tempo), compara a resposta com a certa no :class:`Formato` pedido (que
aceita as formas equivalentes: lista ou tupla, array ou número do numpy) e, se algo não bate, procura
o erro clássico que explica o que aconteceu. Nada do que a função do estudante faça (levantar uma
exceção, devolver ``None``, um tipo estranho, NaN, demorar para sempre) vira um *traceback* do
corretor: tudo vira um :class:`Veredito` com uma mensagem que ensina.

Num notebook::

    ok = licao.check_softmax(minha_softmax)     # imprime o veredito e devolve True/False
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import dis
import functools
import inspect
import io
import operator
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .respostas import (
    Array,
    Formato,
    LeituraFalhou,
    NumeroAproximado,
    RespostaInvalida,
    em_dados,
    iguais,
)

OK = "✅"
ERRO = "❌"
PENDENTE = "⏳"

#: segundos que a função do estudante tem para responder a um caso
TEMPO_LIMITE = 10.0
#: segundos para ler uma previsão (um objeto do estudante com ``__float__`` roda código dele)
TEMPO_PARA_LER = 2.0


@dataclass(frozen=True)
class Veredito:
    """O resultado de uma correção: ``ok``, a mensagem mostrada ao estudante e, quando houver, o
    ``erro`` reconhecido (o nome de um :class:`Erro` do exercício, ou ``"pendente"``, ``"excecao"``,
    ``"tempo"``, ``"tipo"``, ``"forma"``, ``"valor"``)."""

    ok: bool
    mensagem: str
    erro: str | None = None


# ---------------------------------------------------------------------------------------------
# Um exercício: casos, resposta certa, erros clássicos, acerto
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caso:
    """Um caso de teste: as ``entradas`` (na ordem dos argumentos da função do estudante) e a
    ``descricao`` que completa frases como "Isso apareceu {descricao}" ("com q (3,) e K (4, 3)")."""

    descricao: str
    entradas: dict[str, Any]
    nomeados: tuple[str, ...] = ()  #: entradas passadas por nome (``mask=...``), não por posição


@dataclass(frozen=True)
class Erro:
    """Um erro clássico, com o nome curto que o guia do instrutor usa e a explicação para o estudante.

    Ele é reconhecido de um de dois jeitos:

    - ``resposta(**entradas)`` constrói a resposta que esse erro dá (``None`` ou uma exceção = o erro
      não se aplica a este caso); casa se a resposta do estudante for igual a ela no ``formato`` (o do
      exercício, se ``None``);
    - ``quando(bruta, certo, caso)`` é uma condição sobre a resposta crua do estudante.

    Com ``sempre=True`` o erro é conferido mesmo quando a resposta bate com a certa (por exemplo, os
    números certos num dtype errado). ``explicacao`` pode ser um texto ou uma função das entradas.
    """

    nome: str
    explicacao: str | Callable[..., str]
    resposta: Callable[..., Any] | None = None
    quando: Callable[[Any, Any, Caso], bool] | None = None
    #: reconhece o erro pela exceção que a função levantou (um erro clássico que quebra em vez de responder)
    levanta: Callable[[BaseException, Caso], bool] | None = None
    formato: Formato | None = None
    sempre: bool = False

    def texto(self, caso: Caso) -> str:
        return self.explicacao(**caso.entradas) if callable(self.explicacao) else self.explicacao


@dataclass(frozen=True)
class Regra:
    """Uma regra do enunciado ("sem @", "sem laços", "sem attention.softmax") conferida na **própria função**,
    não só na resposta: ``viola(fn)`` diz se ela foi quebrada. Só é conferida quando as respostas estão certas
    (uma resposta errada tem o seu próprio diagnóstico)."""

    nome: str
    explicacao: str
    viola: Callable[[Callable[..., Any]], bool]


def codigos_de(fn: Any) -> list[Any]:
    """Os objetos de código (``types.CodeType``) de ``fn`` e de tudo o que ela define dentro (funções aninhadas,
    compreensões, lambdas), para ler o que ela faz sem rodá-la (com :mod:`dis`); vazio se ``fn`` não tem
    ``__code__`` (uma função do numpy, um objeto qualquer). É o que as regras do enunciado leem."""
    codigo = getattr(fn, "__code__", None)
    if codigo is None:
        return []
    todos, pilha = [], [codigo]
    while pilha:
        c = pilha.pop()
        todos.append(c)
        pilha += [k for k in c.co_consts if hasattr(k, "co_code")]
    return todos


def _funcao(obj: Any) -> Any:
    """A função de Python por trás de ``obj`` (um método ligado, um ``functools.partial``), ou ``None``."""
    for _ in range(5):
        if inspect.isfunction(obj):
            return obj
        obj = getattr(obj, "__func__", None) or (obj.func if isinstance(obj, functools.partial) else None)
        if obj is None:
            return None
    return None


_CARREGA_GLOBAL = {"LOAD_GLOBAL", "LOAD_NAME"}


@dataclass
class _Alcance:
    """O que a função do estudante alcança sem rodar: as funções **dele** (ela, as que ela chama pelo nome, as dos
    closures e dos valores padrão, e assim por diante), os objetos que elas referenciam e se alguma chama a si
    mesma (direta ou indiretamente)."""

    funcoes: list[Any]
    objetos: list[Any]
    recursiva: bool


def _do_estudante(f: Any, globais: Any) -> bool:
    return f.__globals__ is globais or getattr(f, "__module__", None) == "__main__"


def _alcance(fn: Callable[..., Any]) -> _Alcance:
    raiz = _funcao(fn)
    if raiz is None:
        return _Alcance([], [], False)
    globais = raiz.__globals__
    funcoes: dict[int, Any] = {}
    arestas: dict[int, set[int]] = {}
    objetos: list[Any] = []
    pilha = [raiz]
    while pilha:
        f = pilha.pop()
        if id(f) in funcoes:
            continue
        funcoes[id(f)] = f
        refs: list[Any] = []
        for c in codigos_de(f):
            for i in dis.get_instructions(c):
                if i.opname in _CARREGA_GLOBAL and i.argval in f.__globals__:
                    refs.append(f.__globals__[i.argval])
        refs += [c.cell_contents for c in (f.__closure__ or ()) if celula_preenchida(c)]
        refs += list(f.__defaults__ or ()) + list((f.__kwdefaults__ or {}).values())
        arestas[id(f)] = set()
        for o in refs:
            objetos.append(o)
            if isinstance(o, functools.partial):
                objetos.extend([*o.args, *o.keywords.values()])
            g = _funcao(o)
            if g is not None and _do_estudante(g, globais):
                arestas[id(f)].add(id(g))
                pilha.append(g)
    return _Alcance(list(funcoes.values()), objetos, _tem_ciclo(arestas))


def celula_preenchida(celula: Any) -> bool:
    """A célula de um *closure* (um item de ``f.__closure__``) já tem valor? Uma variável de fora que ainda não foi
    atribuída deixa a célula vazia, e ler ``cell_contents`` dela levantaria ``ValueError``."""
    try:
        celula.cell_contents  # noqa: B018 - uma célula vazia levanta ValueError
    except ValueError:
        return False
    return True


def _tem_ciclo(arestas: dict[int, set[int]]) -> bool:
    cor: dict[int, int] = {}  # 1 = no caminho atual, 2 = terminado

    def visitar(v: int) -> bool:
        cor[v] = 1
        for w in arestas.get(v, ()):
            if cor.get(w) == 1 or (w not in cor and visitar(w)):
                return True
        cor[v] = 2
        return False

    return any(v not in cor and visitar(v) for v in list(arestas))


def _nomes_mencionados(alcance: _Alcance) -> set[str]:
    """Os nomes que as funções alcançadas mencionam (atributos, funções globais, imports). Uma função do estudante
    com o nome de uma proibida conta (quem copia ``diferencas_finitas`` para o notebook ainda a usa), e é seguida
    por dentro também."""
    return {n for f in alcance.funcoes for c in codigos_de(f) for n in c.co_names}


# --- o exame de uma execução: o que a função do estudante chamou de fato ------------------------------


@dataclass
class _Exame:
    """O que a função do estudante fez numa execução vigiada (:func:`_examinar`): os nomes das funções de fora
    (de bibliotecas) que o código **dele** chamou e os produtos matriciais que ele fez."""

    funcao: Any
    chamadas: set[str] = field(default_factory=set)
    matriciais: set[str] = field(default_factory=set)


#: o exame da função que as regras estão conferindo agora (``None`` fora de uma correção)
_exame_atual: _Exame | None = None
#: o exame em andamento (quem registra: o perfil e os arrays vigiados)
_vigiando: tuple[_Exame, Any] | None = None

_MATMUL = np.matmul
_UFUNCS_MATRICIAIS = tuple(u for u in (np.matmul, getattr(np, "vecdot", None)) if u is not None)
_FUNCOES_MATRICIAIS = tuple(f for f in (np.dot, np.inner, np.vdot, np.einsum, np.tensordot, np.linalg.multi_dot,
                                        getattr(np.linalg, "vecdot", None), getattr(np.linalg, "matmul", None))
                            if f is not None)
NOMES_MATRICIAIS = {"dot", "matmul", "inner", "vdot", "einsum", "tensordot", "multi_dot", "vecdot",
                    "__matmul__", "__rmatmul__", "__imatmul__"}


def _quadro_do_estudante(quadro: Any) -> bool:
    if quadro is None or _vigiando is None:
        return False
    globais = getattr(_funcao(_vigiando[0].funcao), "__globals__", None)
    return quadro.f_globals is globais or quadro.f_globals.get("__name__") == "__main__"


def _registrar_matricial(nome: str, quadro: Any) -> None:
    if _vigiando is not None and _quadro_do_estudante(quadro):
        _vigiando[0].matriciais.add(nome)


def _vigiar_array(y: Any) -> Any:
    if type(y) is np.ndarray:
        return y.view(_Vigiado)
    if isinstance(y, tuple):
        return tuple(_vigiar_array(v) for v in y)
    return y


def _sem_vigia(y: Any) -> Any:
    return y.view(np.ndarray) if isinstance(y, _Vigiado) else y


class _Vigiado(np.ndarray):
    """Um array do numpy que anota os produtos matriciais feitos com ele pelo código do estudante — ``@``,
    ``q.__matmul__(k)``, ``operator.matmul``, ``np.matmul``, ``np.dot`` (mesmo por ``getattr(np, "d" + "ot")``),
    ``q.dot(k)``, ``np.einsum``… —, seja qual for o nome pelo qual a função foi alcançada. Os resultados continuam
    vigiados (``Q = X @ W_q`` também é). Só a API pública de subclasses do numpy (``__array_ufunc__``,
    ``__array_function__``)."""

    def __array_ufunc__(self, ufunc: Any, method: str, *entradas: Any, **kwargs: Any) -> Any:
        if ufunc in _UFUNCS_MATRICIAIS:
            _registrar_matricial(ufunc.__name__, inspect.currentframe().f_back)
        if "out" in kwargs:
            kwargs["out"] = tuple(_sem_vigia(o) for o in kwargs["out"])
        return _vigiar_array(getattr(ufunc, method)(*(_sem_vigia(x) for x in entradas), **kwargs))

    def __array_function__(self, func: Any, tipos: Any, args: Any, kwargs: Any) -> Any:
        if func in _FUNCOES_MATRICIAIS:
            _registrar_matricial(func.__name__, inspect.currentframe().f_back)
        return super().__array_function__(func, tipos, args, kwargs)

    def dot(self, *args: Any, **kwargs: Any) -> Any:
        _registrar_matricial("dot", inspect.currentframe().f_back)
        return _vigiar_array(np.ndarray.dot(_sem_vigia(self), *(_sem_vigia(a) for a in args), **kwargs))


def _examinar(preparada: Callable[..., Any], original: Callable[..., Any], caso: Caso) -> _Exame:
    """Roda ``preparada`` uma vez no ``caso`` (com arrays vigiados e um perfil do Python ligado) e anota o que o
    código do estudante (``original`` e as funções dele) chamou: cada função de fora, **pelo objeto chamado** e
    não pelo nome que ele usou (um apelido numa célula anterior, um valor padrão, um ``getattr``, uma função dele
    que chama a proibida), e cada produto matricial. A resposta desta execução é jogada fora; uma exceção nela
    só encurta o exame. Roda dentro do limite de tempo do corretor."""
    global _vigiando
    exame = _Exame(original)

    def perfil(quadro: Any, evento: str, arg: Any) -> None:
        if evento == "call" and _quadro_do_estudante(quadro.f_back) and not _quadro_do_estudante(quadro):
            exame.chamadas.add(quadro.f_code.co_name)
        elif evento == "c_call" and _quadro_do_estudante(quadro):
            exame.chamadas.add(str(getattr(arg, "__name__", "")))

    for vigiar in (True, False):  # sem os arrays vigiados, se o código do estudante não aceitar uma subclasse
        entradas = copy.deepcopy(caso.entradas)
        if vigiar:
            entradas = {k: _vigiar_array(v) for k, v in entradas.items()}
        args = [v for k, v in entradas.items() if k not in caso.nomeados]
        kwargs = {k: v for k, v in entradas.items() if k in caso.nomeados}
        antes, _vigiando = _vigiando, (exame, None)
        try:
            # o que ela imprime já apareceu na correção: esta execução extra não aparece na página
            with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                warnings.simplefilter("ignore")
                sys.setprofile(perfil)
                try:
                    preparada(*args, **kwargs)
                finally:
                    sys.setprofile(None)
            return exame
        except Exception:  # noqa: BLE001 - só o exame: a resposta já foi conferida
            continue
        finally:
            _vigiando = antes
    return exame


def _regra_violada(ex: Exercicio, original: Callable[..., Any], preparada: Callable[..., Any]) -> Regra | None:
    """A primeira regra do enunciado que a função quebra (``None`` se nenhuma), com o exame de uma execução dela à
    disposição de :func:`usa_nomes` e :func:`usa_operador_matricial`."""
    global _exame_atual
    if not ex.regras:
        return None
    casos = list(ex.casos())
    exame = _examinar(preparada, original, casos[0]) if casos else None
    antes, _exame_atual = _exame_atual, exame
    try:
        return next((r for r in ex.regras if r.viola(original)), None)
    finally:
        _exame_atual = antes


def _chamadas_de(fn: Callable[..., Any]) -> set[str]:
    """Os nomes que o exame em curso viu ``fn`` chamar (vazio fora de uma correção, ou para outra função)."""
    return _exame_atual.chamadas if _exame_atual is not None and _exame_atual.funcao is fn else set()


def usa_nomes(fn: Callable[..., Any], nomes: set[str]) -> bool:
    """``fn`` usa alguma função com um destes nomes (``softmax`` pega ``attention.softmax``)?

    Sem rodar: nas funções que ``fn`` alcança (as do próprio estudante que ela chama, por closure ou valor padrão),
    um nome mencionado, ou um objeto referenciado que **é** uma função com esse nome (``s = attention.softmax`` numa
    célula anterior, ``def f(x, _s=attention.softmax)``). Durante uma correção, também o que ela chamou de fato numa
    execução vigiada (``getattr(attention, "soft" + "max")``)."""
    alcance = _alcance(fn)
    if _nomes_mencionados(alcance) & nomes or _chamadas_de(fn) & nomes:
        return True
    estudante = alcance.funcoes[0].__globals__ if alcance.funcoes else None
    for o in alcance.objetos:
        g = _funcao(o)
        if g is not None and _do_estudante(g, estudante):
            continue
        if getattr(o, "__name__", None) in nomes and not inspect.ismodule(o):
            return True
    # a própria pronta, passada direto ao corretor (check_softmax(attention.softmax))
    return getattr(fn, "__name__", None) in nomes and str(getattr(fn, "__module__", "")).startswith(_BIBLIOTECAS)


#: de onde vêm as funções prontas (uma função com o nome proibido vinda daqui é a pronta)
_BIBLIOTECAS = ("helpers", "numpy", "scipy", "torch", "jax", "tensorflow", "operator")


def usa_operador_matricial(fn: Callable[..., Any]) -> bool:
    """``fn`` (ou uma função do estudante que ela alcança) usa ``@`` ou um produto matricial do numpy (``np.dot``,
    ``np.matmul``, ``q.dot``, ``q.__matmul__``, ``operator.matmul``, ``np.einsum``…)? Durante uma correção, também
    o que ela fez de fato numa execução com arrays vigiados (:class:`_Vigiado`)."""
    if _exame_atual is not None and _exame_atual.funcao is fn and _exame_atual.matriciais:
        return True
    for f in _alcance(fn).funcoes:
        for c in codigos_de(f):
            for i in dis.get_instructions(c):
                if i.opname == "BINARY_MATRIX_MULTIPLY" or (i.opname.startswith("BINARY_OP") and i.argrepr in ("@", "@=")):
                    return True
    objetos = _alcance(fn).objetos
    return (usa_nomes(fn, NOMES_MATRICIAIS)
            or any(any(o is m for m in (*_UFUNCS_MATRICIAIS, *_FUNCOES_MATRICIAIS, operator.matmul)) for o in objetos)
            or any(fn is m for m in (*_UFUNCS_MATRICIAIS, *_FUNCOES_MATRICIAIS, operator.matmul)))


def tem_laco(fn: Callable[..., Any]) -> bool:
    """``fn`` (ou uma função do estudante que ela chama) tem um laço de Python (``for``, ``while``, uma
    compreensão), um laço disfarçado (``np.vectorize``, ``np.apply_along_axis``, ``map``) ou uma **recursão** (uma
    função que chama a si mesma, direta ou indiretamente: é um laço escrito de outro jeito)?"""
    alcance = _alcance(fn)
    if alcance.recursiva:
        return True
    for f in alcance.funcoes:
        for c in codigos_de(f):
            for i in dis.get_instructions(c):
                # um laço é um salto para trás (while, for) ou um FOR_ITER (for, compreensões)
                para_tras = "JUMP" in i.opname and isinstance(i.argval, int) and i.argval <= i.offset
                if i.opname == "FOR_ITER" or para_tras:
                    return True
    return usa_nomes(fn, {"vectorize", "apply_along_axis", "map", "fromiter"})


@dataclass
class Exercicio:
    """Um exercício corrigido: veja o topo deste módulo.

    ``explica_forma(**entradas)``, se houver, completa a mensagem quando a função do estudante levanta
    um erro de forma do numpy (o texto diz quais formas se multiplicam); ``dica_de_forma`` completa a
    mensagem de uma resposta com a forma errada e ``dica_de_valor``, a de um valor errado que nenhum erro
    clássico explica. ``mostrar_valores`` põe "esperava … veio …" nas
    mensagens de erro reconhecido.
    """

    nome: str
    casos: Callable[[], Sequence[Caso]]
    certo: Callable[..., Any]
    acerto: str | Callable[[], str]
    erros: Sequence[Erro] = ()
    formato: Formato = field(default_factory=Array)
    explica_forma: Callable[..., str] | None = None
    dica_de_forma: str = ""
    dica_de_valor: str = ""
    mostrar_valores: bool = True
    tempo_limite: float = TEMPO_LIMITE
    regras: Sequence[Regra] = ()
    #: entradas que a função pode mudar no lugar (o cache de um passo de geração); as outras, não
    entradas_que_mudam: tuple[str, ...] = ()
    #: quando o estudante escreve só um pedaço (um passo, a atualização de um bloco), o corretor o põe para rodar:
    #: ``preparar(fn)`` devolve a função completa que os casos chamam (as regras valem para ``fn``)
    preparar: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None

    def nomes_dos_erros(self) -> list[str]:
        """Os nomes dos erros clássicos que este corretor reconhece (os "erros típicos" do guia)."""
        return [e.nome for e in self.erros]


def bate_com_alguma(formato: Formato, *respostas: Callable[..., Any]) -> Callable[[Any, Any, Caso], bool | None]:
    """A condição de um :class:`Erro` com várias respostas erradas possíveis (``None``: não se aplica ao caso)."""

    def quando(bruta: Any, _certo: Any, caso: Caso) -> bool | None:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            y = formato.normalizar(bruta)
            aplicou = False
            for resposta in respostas:
                try:
                    errada = resposta(**copy.deepcopy(caso.entradas))
                    if errada is None:
                        continue
                    errada = formato.normalizar(errada)
                except Exception:  # noqa: BLE001 - esta versão do erro não roda com estas formas
                    continue
                aplicou = True
                if formato.igual(y, errada):
                    return True
        return False if aplicou else None

    return quando


# ---------------------------------------------------------------------------------------------
# Chamar a função do estudante com segurança
# ---------------------------------------------------------------------------------------------


class _Pendente(Exception):
    """A função ainda é o esqueleto (``NotImplementedError``) ou devolveu ``None``."""

    def __init__(self, devolveu_none: bool):
        super().__init__()
        self.devolveu_none = devolveu_none


@dataclass
class _Falha:
    caso: Caso
    certo: Any
    bruta: Any = None  # a resposta crua (se a função respondeu)
    resposta: Any = None  # a resposta normalizada (se deu para ler)
    excecao: BaseException | None = None
    invalida: str | None = None


class _TempoEsgotado(BaseException):
    """A função passou do limite de tempo. É ``BaseException``: um ``except Exception`` da função do estudante
    não a engole. E, quando é criada na thread principal durante uma correção, ela liga a **insistência** (veja
    :func:`_com_limite`): a partir dali cada linha que o código do estudante executar a levanta de novo, então
    nem um ``except BaseException: continue`` a segura."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        if _fronteira is not None and threading.current_thread() is threading.main_thread():
            _insistir_a_partir_de(inspect.currentframe())


#: o quadro de :func:`_com_limite` durante uma correção na thread principal (daqui para cima é o corretor)
_fronteira: Any = None


def _insistir(_quadro: Any, evento: str, _arg: Any) -> Any:
    # só nas linhas: levantar num evento de exceção desligaria o rastreamento
    if evento == "line":
        raise _TempoEsgotado
    return _insistir


def _insistir_a_partir_de(quadro: Any) -> None:
    """Liga o rastreamento que levanta o fim do tempo em cada linha: nos quadros entre ``quadro`` e a fronteira
    (o código do estudante que está rodando) e nos quadros novos (as funções que ele chamar)."""
    while quadro is not None and quadro is not _fronteira:
        quadro.f_trace = _insistir
        quadro = quadro.f_back
    sys.settrace(_insistir)


def _lancar_na_thread(ident: int, excecao: type[BaseException]) -> None:
    """Levanta ``excecao`` na thread ``ident`` assim que ela executar o próximo bytecode, pela função da API C do
    Python ``PyThreadState_SetAsyncExc`` (documentada; só no CPython)."""
    if _SET_ASYNC_EXC is not None:
        _SET_ASYNC_EXC(ident, ctypes.py_object(excecao))


def _prototipo_set_async_exc() -> Any:
    api = getattr(ctypes, "pythonapi", None)
    if api is None:
        return None
    prototipo = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)
    return prototipo(("PyThreadState_SetAsyncExc", api))


#: ``PyThreadState_SetAsyncExc(id, exc)``, com os tipos dos argumentos declarados
_SET_ASYNC_EXC = _prototipo_set_async_exc()


def _nada() -> None:
    """Uma chamada vazia: ao entrar numa função, o Python entrega uma exceção lançada de outra thread que ainda
    não tinha chegado."""


#: a folga do vigia: se o alarme não interrompeu a função até limite + folga, alguém o desligou
FOLGA_DO_VIGIA = 0.5


def _vigiar(ident: int, terminou: threading.Event, trava: threading.Lock, espera: float) -> None:
    """O vigia, numa thread à parte: se a chamada não terminou em ``espera`` segundos (a função do estudante
    desligou o alarme, ignorou o SIGALRM ou trocou o tratador), levanta o fim do tempo na thread principal a
    cada 50 ms até ela sair. A trava garante que nada é lançado depois que a chamada terminou."""
    if terminou.wait(espera):
        return
    while True:
        with trava:
            if terminou.is_set():
                return
            _lancar_na_thread(ident, _TempoEsgotado)
        if terminou.wait(0.05):
            return


def _com_limite(fn: Callable[[], Any], limite: float) -> Any:
    """``fn()``, interrompida depois de ``limite`` segundos.

    Na thread principal (JupyterLab, Voilà, nbval, pytest), duas camadas:

    1. um alarme do sistema (``SIGALRM``, repetido a cada 50 ms) interrompe até um laço infinito ou um
       ``time.sleep``. E insiste: a partir do fim do tempo, cada linha que a função do estudante executa levanta o
       fim do tempo de novo (rastreamento com ``sys.settrace``), então nem um ``while True: try: … except
       BaseException: continue`` prende o corretor;
    2. um vigia numa thread à parte, para quem desliga o alarme (``signal.setitimer(signal.ITIMER_REAL, 0)``,
       ``signal.alarm(0)``) ou o ignora (``signal.signal(signal.SIGALRM, signal.SIG_IGN)``): se a função ainda roda
       ``FOLGA_DO_VIGIA`` segundos depois do limite, ele levanta o fim do tempo na thread principal (a cada 50 ms,
       com a mesma insistência). O que o vigia não interrompe: uma única chamada em C que não volta ao Python
       (um ``time.sleep`` de horas depois de desligar o alarme) só é interrompida quando volta.

    Ao sair, o alarme, o tratador do sinal, o rastreamento e o vigia voltam ao que eram: o kernel continua
    usável. Onde não há alarme (Windows, outra thread), a função roda numa thread à parte e o corretor para de
    esperar por ela no limite.
    """
    global _fronteira
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        ident, terminou, trava = threading.get_ident(), threading.Event(), threading.Lock()
        antes = _fronteira
        anterior = signal.signal(signal.SIGALRM, lambda _sinal, _quadro: _levantar_fim_do_tempo())
        _fronteira = inspect.currentframe()
        vigia = threading.Thread(target=_vigiar, args=(ident, terminou, trava, limite + FOLGA_DO_VIGIA),
                                 daemon=True)
        vigia.start()
        signal.setitimer(signal.ITIMER_REAL, limite, 0.05)
        try:
            return fn()
        finally:
            # um alarme (ou o vigia) pode chegar no meio da arrumação: ela recomeça até terminar. A primeira coisa
            # é desligar o rastreamento, antes de chamar qualquer função em Python.
            while True:
                try:
                    sys.settrace(None)
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    with trava:
                        terminou.set()  # daqui em diante o vigia não lança mais nada
                    _nada()  # e o que ele lançou antes chega aqui, dentro deste try
                    signal.signal(signal.SIGALRM, anterior)
                    _fronteira = antes
                    break
                except _TempoEsgotado:
                    continue
    resultado: dict[str, Any] = {}

    def alvo() -> None:
        try:
            resultado["valor"] = fn()
        except BaseException as exc:  # noqa: BLE001 - repassada abaixo
            resultado["erro"] = exc

    t = threading.Thread(target=alvo, daemon=True)
    t.start()
    t.join(limite)
    if t.is_alive():
        raise _TempoEsgotado
    if "erro" in resultado:
        raise resultado["erro"]
    return resultado.get("valor")


def _levantar_fim_do_tempo() -> None:
    raise _TempoEsgotado


def _iguais(a: Any, b: Any) -> bool:
    """Duas entradas são iguais (arrays pelo conteúdo, com NaN igual a NaN; listas e dicionários por item)?"""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and iguais(a, b, nan_igual=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_iguais(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_iguais(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - um objeto que não se compara: conta como igual
        return True


def _rodar(fn: Callable[..., Any], caso: Caso, protegidas: Sequence[str]) -> tuple[Any, list[str]]:
    """Roda ``fn`` no caso (com cópias das entradas) e devolve a resposta já lida como dados simples
    (:func:`~helpers.respostas.em_dados`) e as entradas que ela mudou no lugar. Tudo o que roda código do estudante
    — a chamada, a leitura da resposta, a comparação das entradas que ele tocou — acontece aqui, dentro do limite."""
    entradas = copy.deepcopy(caso.entradas)  # a função do estudante não estraga os nossos casos
    args = [v for k, v in entradas.items() if k not in caso.nomeados]
    kwargs = {k: v for k, v in entradas.items() if k in caso.nomeados}
    resultado = fn(*args, **kwargs)
    if resultado is None:
        return None, []
    bruta = em_dados(resultado)
    mudadas = [k for k in caso.entradas if k in protegidas and not _iguais(entradas[k], caso.entradas[k])]
    return bruta, mudadas


def _chamar(fn: Callable[..., Any], caso: Caso, limite: float, protegidas: Sequence[str] = ()) -> tuple[Any, list[str]]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # overflow em exp vira resultado (NaN), não aviso
            with np.errstate(all="ignore"):
                bruta, mudadas = _com_limite(lambda: _rodar(fn, caso, protegidas), limite)
    except NotImplementedError as exc:
        raise _Pendente(False) from exc
    if bruta is None:
        raise _Pendente(True)
    return bruta, mudadas


# ---------------------------------------------------------------------------------------------
# O laço, escrito uma vez
# ---------------------------------------------------------------------------------------------

_PALAVRAS_DE_FORMA = ("matmul", "shapes", "aligned", "broadcast", "mismatch", "dimension", "size")


def erro_de_forma(exc: BaseException) -> bool:
    """A exceção é um erro de forma do numpy (um ``@`` ou um broadcasting que não fecha)?"""
    return isinstance(exc, ValueError) and any(p in str(exc) for p in _PALAVRAS_DE_FORMA)


def _maiuscula(texto: str) -> str:
    return texto[:1].upper() + texto[1:]


def _casa(ex: Exercicio, erro: Erro, falha: _Falha) -> bool | None:
    """``True``/``False`` se o erro se aplica a este caso, ``None`` se não se aplica (ou se a função
    não respondeu)."""
    if falha.bruta is None:
        return None
    if erro.quando is not None:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")  # nenhum aviso do corretor vaza para a saída do estudante
                return bool(erro.quando(falha.bruta, falha.certo, falha.caso))
        except Exception:  # noqa: BLE001 - a condição não se aplica a esta resposta
            return None
    formato = erro.formato or ex.formato
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            errada = erro.resposta(**copy.deepcopy(falha.caso.entradas))
        if errada is None:
            return None
        errada = formato.normalizar(errada)
    except Exception:  # noqa: BLE001 - o erro não "roda" com estas formas: não se aplica
        return None
    try:
        return formato.igual(formato.normalizar(falha.bruta), errada)
    except RespostaInvalida:
        return False


def _com_valores(ex: Exercicio, falha: _Falha) -> str:
    if not ex.mostrar_valores or falha.resposta is None:
        return f"(Isso apareceu {falha.caso.descricao}.)"
    return f"(Isso apareceu {falha.caso.descricao}: {_esperava_veio(ex, falha)}.)"


def _esperava_veio(ex: Exercicio, falha: _Falha) -> str:
    esperado, veio = ex.formato.mostrar(falha.certo), ex.formato.mostrar(falha.resposta)
    if "\n" in esperado + veio:
        return f"esperava\n{esperado}\nveio\n{veio}"
    return f"esperava {esperado}, veio {veio}"


def _veredito_do_erro(ex: Exercicio, erro: Erro, falha: _Falha, falhas: Sequence[_Falha] = ()) -> Veredito:
    texto = f"{ERRO} {erro.texto(falha.caso)}\n{_com_valores(ex, falha)}"
    # o mesmo erro, com outras formas, nem roda: diga isso também (o numpy já avisou o estudante)
    quebrada = next((f for f in falhas if f.excecao is not None and erro_de_forma(f.excecao)), None)
    if quebrada is not None:
        dica = ex.explica_forma(**quebrada.caso.entradas) if ex.explica_forma else ""
        texto += (f"\n{_maiuscula(quebrada.caso.descricao)}, a mesma conta nem roda — o numpy reclamou "
                  f"{type(quebrada.excecao).__name__}: {str(quebrada.excecao).rstrip('.')}. {dica}").rstrip()
    return Veredito(False, texto, erro.nome)


def _diagnosticar(ex: Exercicio, falhas: list[_Falha], nome: str) -> Veredito:
    erros = [e for e in ex.erros if not e.sempre]
    # 1. um erro clássico que explica todas as falhas em que se aplica
    for erro in erros:
        resultados = [(f, _casa(ex, erro, f)) for f in falhas]
        if any(r is True for _, r in resultados) and not any(r is False for _, r in resultados):
            return _veredito_do_erro(ex, erro, next(f for f, r in resultados if r), falhas)
    # 2. um erro clássico que explica a primeira falha em que a função respondeu
    respondidas = [f for f in falhas if f.bruta is not None]
    for falha in respondidas[:1]:
        for erro in erros:
            if _casa(ex, erro, falha):
                return _veredito_do_erro(ex, erro, falha, falhas)
    primeira = falhas[0]
    titulo = _maiuscula(primeira.caso.descricao)
    # 3. a função levantou uma exceção: primeiro, um erro clássico que se reconhece por ela
    if primeira.excecao is not None:
        exc = primeira.excecao
        for erro in ex.erros:
            try:
                reconhecido = erro.levanta is not None and bool(erro.levanta(exc, primeira.caso))
            except Exception:  # noqa: BLE001 - a condição não se aplica a esta exceção
                reconhecido = False
            if reconhecido:
                return Veredito(False, f"{ERRO} {erro.texto(primeira.caso)}\n(`{nome}` levantou {type(exc).__name__} "
                                       f"{primeira.caso.descricao}: {exc})", erro.nome)
        texto = f"{ERRO} `{nome}` levantou {type(exc).__name__} {primeira.caso.descricao}: {exc}\n"
        if erro_de_forma(exc):
            dica = ex.explica_forma(**primeira.caso.entradas) if ex.explica_forma else (
                "Confira as formas de cada array e a ordem dos fatores em cada @.")
            return Veredito(False, texto + "Isso é um erro de forma. " + dica, "forma")
        return Veredito(False, texto + "Leia a mensagem acima, corrija a função e rode as duas células de novo.",
                        "excecao")
    # 4. a resposta não tem o formato pedido
    if primeira.invalida is not None:
        return Veredito(False, f"{ERRO} {titulo}: {primeira.invalida}.", "tipo")
    # 5. forma errada, NaN, ou só o valor errado
    forma_certa, forma_veio = ex.formato.forma(primeira.certo), ex.formato.forma(primeira.resposta)
    if forma_certa is not None and forma_certa != forma_veio:
        return Veredito(False, f"{ERRO} {titulo}: a resposta deveria ter forma {forma_certa}, mas veio {forma_veio}. "
                               f"{ex.dica_de_forma}".rstrip(), "forma")
    try:
        nao_finita = not np.all(np.isfinite(np.asarray(primeira.resposta, dtype=float)))
    except (TypeError, ValueError):
        nao_finita = False
    if nao_finita:
        return Veredito(False, f"{ERRO} {titulo}: a resposta tem NaN ou inf — alguma conta estourou ou dividiu "
                               f"por zero. {_com_valores(ex, primeira)}", "valor")
    return Veredito(False, f"{ERRO} {titulo}: {_esperava_veio(ex, primeira)}. {ex.dica_de_valor}".rstrip(), "valor")


def _corrigir(ex: Exercicio, fn: Any) -> Veredito:
    if not callable(fn):
        return Veredito(False, f"{ERRO} Passe a **função** ao corretor, sem parênteses — check_…(minha_funcao), e "
                               f"não check_…(minha_funcao(...)). Veio {type(fn).__name__}.", "tipo")
    nome = getattr(fn, "__name__", "sua função")
    original, fn = fn, (ex.preparar(fn) if ex.preparar is not None else fn)
    falhas: list[_Falha] = []
    for caso in ex.casos():
        certo = ex.formato.normalizar(ex.certo(**copy.deepcopy(caso.entradas)))
        protegidas = [k for k in caso.entradas if k not in ex.entradas_que_mudam]
        try:
            bruta, mudadas = _chamar(fn, caso, ex.tempo_limite, protegidas)
        except _Pendente as p:
            motivo = ("devolveu None: ela ainda não foi implementada, ou faltou o `return` no fim" if p.devolveu_none
                      else "ainda não foi implementada")
            return Veredito(False, f"{PENDENTE} `{nome}` {motivo}. Complete a função na célula acima, rode-a de novo "
                                   "e depois rode esta célula. (O resto do notebook funciona mesmo assim.)", "pendente")
        except _TempoEsgotado:
            return Veredito(False, f"{ERRO} `{nome}` passou de {ex.tempo_limite:g} s sem responder "
                                   f"{caso.descricao} e foi interrompida. Procure um laço que nunca termina (um "
                                   "while cuja condição nunca muda?) ou uma conta enorme por engano.", "tempo")
        except RecursionError as exc:
            return Veredito(False, f"{ERRO} `{nome}` levantou RecursionError {caso.descricao}: {exc}. Uma função "
                                   "que chama a si mesma (direta ou indiretamente) sem parar: falta o caso que "
                                   "termina a recursão? Aqui um laço, ou uma conta com arrays inteiros, resolve "
                                   "sem recursão.", "recursão")
        except LeituraFalhou as exc:
            falhas.append(_Falha(caso, certo, invalida=exc.mensagem()))
            continue
        except Exception as exc:  # noqa: BLE001 - o erro é do estudante e vira explicação
            falhas.append(_Falha(caso, certo, excecao=exc))
            continue
        if mudadas:
            quais = ", ".join(f"`{k}`" for k in mudadas)
            return Veredito(False, f"{ERRO} `{nome}` mudou no lugar a entrada {quais} que recebeu "
                                   f"({caso.descricao}). Quem chama a função não espera perder os seus arrays: faça as "
                                   "contas em arrays novos (h = … em vez de h[:] = …, ou h += …; ou comece com "
                                   "h = h.copy()).", "mudou a entrada")
        falha = _Falha(caso, certo, bruta=bruta)
        for erro in ex.erros:
            if erro.sempre and _casa(ex, erro, falha):
                return _veredito_do_erro(ex, erro, falha)
        try:
            falha.resposta = ex.formato.normalizar(bruta)
        except RespostaInvalida as r:
            falha.invalida = str(r)
            falhas.append(falha)
            continue
        if not ex.formato.igual(falha.resposta, certo):
            falhas.append(falha)
    if falhas:
        return _diagnosticar(ex, falhas, nome)
    try:
        violada = _com_limite(lambda: _regra_violada(ex, original, fn), ex.tempo_limite)
    except _TempoEsgotado:
        violada = None  # a função já respondeu a tempo a todos os casos; só o exame dela passou do limite
    if violada is not None:
        return Veredito(False, f"{ERRO} As respostas estão certas, mas o enunciado pede outro caminho: "
                               f"{violada.explicacao}", violada.nome)
    return Veredito(True, f"{OK} {ex.acerto() if callable(ex.acerto) else ex.acerto}")


def corretor_de(*exercicios: Exercicio | Previsao) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Marca uma função ``check_*`` (ou ``prever_*``) com o exercício que ela corrige e escreve o resto da docstring
    dela a partir dos dados.

    ``check_x.exercicio`` é o exercício (com mais de um, o primeiro; todos ficam em ``check_x.exercicios``): é assim
    que os testes comparam os erros que o corretor reconhece com os "erros típicos" do guia do instrutor. A
    docstring escrita à mão diz só o que a função recebe e devolve (as formas); :func:`documentacao` acrescenta os
    casos, os erros e as regras de cada exercício, que assim nunca ficam desatualizados."""
    if not exercicios:
        raise ValueError("corretor_de precisa de pelo menos um exercício: corretor_de(EXERCICIO).")

    def marcar(check: Callable[..., Any]) -> Callable[..., Any]:
        check.exercicio = exercicios[0]  # type: ignore[attr-defined]
        check.exercicios = exercicios  # type: ignore[attr-defined]
        check.__doc__ = documentacao(check.__doc__, exercicios)
        return check

    return marcar


def documentacao(mao: str | None, exercicios: Sequence[Any]) -> str:
    """A docstring de um corretor: a parte escrita à mão (``mao``: o que a função recebe e devolve), seguida de
    listas geradas dos dados de cada exercício — "Casos:" (a :attr:`Caso.descricao` de cada caso), "Erros que
    reconhece:" (o :attr:`Erro.nome` de cada erro clássico, ou os equívocos de ``nomes_dos_erros()``) e "Regras:"
    (o :attr:`Regra.nome` de cada regra do enunciado). Com vários exercícios, cada título diz de qual é."""
    partes = [inspect.cleandoc(mao)] if mao and mao.strip() else []
    for ex in exercicios:
        de = f" ({ex.nome})" if len(exercicios) > 1 else ""
        listas = (("Casos", [c.descricao for c in ex.casos()] if isinstance(ex, Exercicio) else []),
                  ("Erros que reconhece", list(ex.nomes_dos_erros())),
                  ("Regras", [r.nome for r in getattr(ex, "regras", ())]))
        partes += [f"{titulo}{de}:\n" + "\n".join(f"- {item}" for item in itens) for titulo, itens in listas if itens]
    return "\n\n".join(partes)


def corrigir(ex: Exercicio, fn: Any) -> Veredito:
    """Corrige ``fn`` no exercício ``ex`` e devolve o :class:`Veredito` (sem imprimir)."""
    try:
        return _corrigir(ex, fn)
    except Exception as exc:  # noqa: BLE001 - um defeito do próprio corretor nunca vira traceback
        return Veredito(False, f"{ERRO} O corretor encontrou uma situação que não previa ({type(exc).__name__}: "
                               f"{exc}). Isso é um problema do corretor, não necessariamente da sua função: compare "
                               "com a solução e, se ela estiver certa, avise quem mantém o material.", "corretor")


def conferir(ex: Exercicio, fn: Any) -> bool:
    """Corrige ``fn``, imprime o veredito e devolve ``True`` só se estiver certa (o que os ``check_*`` fazem)."""
    veredito = corrigir(ex, fn)
    print(veredito.mensagem)
    return veredito.ok


# ---------------------------------------------------------------------------------------------
# Prever, depois conferir
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Previsao:
    """Um exercício de prever-e-conferir: o estudante escreve a previsão numa variável **antes** de rodar
    a célula que revela a resposta; :func:`conferir_previsao` mostra a resposta e compara.

    ``certo`` é a resposta (ou uma função sem argumentos que a calcula); ``erros`` são as previsões
    erradas típicas, cada uma com o equívoco que ela revela (um :class:`Erro` cujo ``resposta()`` não
    recebe argumentos); ``revelar`` é o texto que explica a resposta, mostrado com qualquer previsão — mas
    não sem previsão (``None``): quem lê o notebook sem rodar não deve ver a resposta antes de prever.
    """

    nome: str
    certo: Any
    revelar: str
    formato: Formato = field(default_factory=NumeroAproximado)
    erros: Sequence[Erro] = ()
    #: como a resposta apareceria escrita numa página (o teste confere que nenhuma está à vista antes da
    #: previsão); vazio = a resposta no formato, com vírgula e com ponto decimal
    pistas: tuple[str, ...] = ()
    #: uma previsão de exemplo, legível no formato (a dica da caixa, e o palpite que os testes digitam)
    exemplo: str = "0,5"

    def nomes_dos_erros(self) -> list[str]:
        return [e.nome for e in self.erros]

    def pistas_da_resposta(self) -> list[str]:
        """Os textos que entregariam a resposta: :attr:`pistas`, ou a resposta como o veredito a mostra."""
        if self.pistas:
            return list(self.pistas)
        texto = self.formato.mostrar(self.formato.normalizar(self.certo() if callable(self.certo) else self.certo))
        return sorted({texto, texto.replace(",", ".")})


def corrigir_previsao(prev: Previsao, previsao: Any) -> Veredito:
    """Compara a previsão com a resposta e devolve o :class:`Veredito` (com a revelação no fim)."""
    try:
        certo = prev.formato.normalizar(prev.certo() if callable(prev.certo) else prev.certo)
        resposta = f"\nA resposta: {prev.formato.mostrar(certo)}. {prev.revelar}"
        if previsao is None:  # sem revelar: quem lê o notebook sem rodar não vê a resposta antes de prever
            return Veredito(False, f"{PENDENTE} Escreva a sua previsão na célula acima e rode esta célula de novo: a "
                                   "resposta aparece aqui, depois que você se comprometer com um número.", "pendente")
        try:
            # um objeto do estudante (com __float__ ou __array__) é lido aqui, dentro de um limite de tempo
            valor = prev.formato.normalizar(_com_limite(lambda: em_dados(previsao), TEMPO_PARA_LER))
        except _TempoEsgotado:
            return Veredito(False, f"{ERRO} Ler a sua previsão passou de {TEMPO_PARA_LER:g} s e foi interrompido: "
                                   "ela é um objeto cujo código não termina. Escreva um número, como 0,5 ou 3.", "tempo")
        except LeituraFalhou as exc:
            return Veredito(False, f"{ERRO} {_maiuscula(exc.mensagem())}. Escreva a previsão de novo.", "tipo")
        except RespostaInvalida as r:
            # sem revelar: um erro de digitação não pode custar a previsão
            return Veredito(False, f"{ERRO} {_maiuscula(str(r))}. Escreva a previsão de novo.", "tipo")
        if prev.formato.igual(valor, certo):
            return Veredito(True, f"{OK} Você previu certo!{resposta}")
        caso = Caso("na sua previsão", {})
        for erro in prev.erros:
            formato = erro.formato or prev.formato
            try:
                if formato.igual(formato.normalizar(valor), formato.normalizar(erro.resposta())):
                    return Veredito(False, f"{ERRO} Não era {prev.formato.mostrar(valor)}. {erro.texto(caso)}"
                                           f"{resposta}", erro.nome)
            except (RespostaInvalida, TypeError, ValueError):
                continue
        return Veredito(False, f"{ERRO} Não era {prev.formato.mostrar(valor)}.{resposta}", "valor")
    except Exception as exc:  # noqa: BLE001 - um defeito do corretor nunca vira traceback
        return Veredito(False, f"{ERRO} O corretor encontrou uma situação que não previa ({type(exc).__name__}: "
                               f"{exc}). Avise quem mantém o material.", "corretor")


def conferir_previsao(prev: Previsao, previsao: Any) -> bool:
    """Imprime o veredito da previsão (e a resposta) e devolve ``True`` se ela estava certa."""
    veredito = corrigir_previsao(prev, previsao)
    print(veredito.mensagem)
    return veredito.ok
