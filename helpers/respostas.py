"""Os formatos de resposta dos corretores: o que conta como "a mesma resposta".

Cada :class:`Formato` sabe ler a resposta crua do estudante (``normalizar``, que levanta
:class:`RespostaInvalida` com uma mensagem em português), comparar duas respostas (``igual``) e mostrar
uma delas (``mostrar``). Os formatos aceitam as formas equivalentes: lista ou tupla, array de qualquer
tipo numérico ou número do numpy, vírgula decimal num número digitado. Usados por :mod:`helpers.corretor`.
"""

from __future__ import annotations

import inspect
import math
import re
import types
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .formato import milhares, vetor

__all__ = ["em_dados", "LeituraFalhou", "perto", "iguais", "ler_numero", "NumeroEscrito", "UnidadeDeMemoria", "unidade_de_memoria", "tupla_da_virgula", "tolerancia_de", "casas_escritas", "bate_na_precisao", "RespostaInvalida", "Formato", "Array", "Numero", "NumeroDe", "Bytes", "Mascara", "Sequencia", "SaidaOuPar", "DuasLeituras", "leitura_para",
           "Texto", "NumeroAproximado", "NumeroDeCabeca"]


def tolerancia_de(casas: int) -> float:
    """Meia unidade da casa decimal ``casas`` (0,005 com duas casas), mais uma folga mínima para o
    arredondamento do ponto flutuante (0,67 − 0,665 dá 0,0050000000000000044 em float64)."""
    return 0.5 * 10.0 ** (-casas) * (1 + 1e-9) + 1e-12


def casas_escritas(numero: object) -> int:
    """Quantas casas decimais a pessoa escreveu: ``"0,67"`` → 2, ``0.665`` → 3, ``16`` → 0, ``np.float32(0.67)``
    → 2 (a escrita mais curta do número no próprio tipo dele)."""
    if isinstance(numero, str):
        texto = numero.strip().replace(",", ".")
    elif isinstance(numero, (int, np.integer)):
        return 0
    elif isinstance(numero, np.floating):
        texto = np.format_float_positional(numero, unique=True, trim="-")
    else:
        texto = np.format_float_positional(float(numero), unique=True, trim="-")  # type: ignore[arg-type]
    return len(texto.split(".", 1)[1]) if "." in texto else 0


def bate_na_precisao(valor: float, exato: float, casas_pedidas: int, casas_da_resposta: int) -> bool:
    """A resposta ``valor`` é ``exato`` arredondado até a precisão pedida (ou até a que a pessoa escreveu, se
    ela escreveu mais casas)? 0,67 e 0,665 valem para 0,66524… com duas casas pedidas; 0,7 não (falta
    precisão) e 3,25 não vale para 3 (sobra: quem escreve duas casas diz que as duas estão certas)."""
    return abs(valor - exato) <= tolerancia_de(max(casas_pedidas, casas_da_resposta))


class RespostaInvalida(Exception):
    """A resposta não tem o formato pedido; a mensagem diz o que veio e o que se esperava."""


# --- o leitor de números escritos: um só para as previsões, o quiz e os formatos ---------------------

_TEXTO_NUMERICO = re.compile(r"^\s*([+-]?[\d\s\u00a0\u202f.,]*\d)\s*([^\d\s].*?)?\s*$")
#: um ponto só, seguido de exatamente três dígitos, depois de uma parte inteira que não é zero: "4.160"
_PONTO_AMBIGUO = re.compile(r"^[+-]?[1-9]\d{0,2}\.\d{3}$")


@dataclass(frozen=True)
class NumeroEscrito:
    """Um número lido de um texto: o valor, as casas decimais que a pessoa escreveu e a unidade que veio depois
    (``""`` se nenhuma)."""

    valor: float
    casas: int
    unidade: str


#: como se escreve o infinito numa caixa: "∞", "inf", "infinito" (com sinal, se for o caso)
_INFINITOS = {"∞", "inf", "infinito", "infinity", "infinita"}


def ler_numero(texto: str) -> NumeroEscrito | None:
    """Lê um número escrito por uma pessoa, à brasileira ou não. As regras (uma só para as caixas de previsão, o
    quiz e os formatos):

    - vírgula ou ponto decimal: ``"0,576"`` e ``"0.576"`` → 0,576; o sinal de menos tipográfico vale (``"−0,5"``);
    - milhares com espaço (``"4 160"``, ``"131 072"``), ou com ponto quando há vários grupos ou uma vírgula decimal
      (``"12.800.000"``, ``"1.024,5"``). ``"4.160"`` é ambíguo (4160 com ponto de milhar, ou 4,16 com ponto
      decimal): levanta :class:`RespostaInvalida` com a pergunta, sem adivinhar;
    - um **percentual é lido como a fração que ele é**: ``"58%"`` e ``"58 %"`` → 0,58, ``"100%"`` → 1 (com duas
      casas a mais: ``"57,6%"`` tem três);
    - ``"∞"``, ``"inf"`` e ``"infinito"`` (com ``-`` na frente, o negativo) → infinito;
    - uma unidade depois do número fica em ``unidade`` (``"128 KiB"`` → 128 e ``"KiB"``; ``"16 tokens"``): quem
      pediu a unidade a confere.

    ``None`` se não for um número.
    """
    limpo = texto.strip().replace("\u2212", "-")  # o sinal de menos tipográfico (copiado da página)
    sem_sinal = limpo.lstrip("+-").strip().lower()
    if sem_sinal in _INFINITOS:
        return NumeroEscrito(-math.inf if limpo.startswith("-") else math.inf, 0, "")
    m = _TEXTO_NUMERICO.match(limpo)
    if not m:
        return None
    numero, unidade = re.sub(r"[\s\u00a0\u202f]", "", m.group(1)), (m.group(2) or "").strip()
    if _PONTO_AMBIGUO.match(numero):
        inteiro, fracao = numero.lstrip("+-").split(".")
        sinal = "-" if numero.startswith("-") else ""
        raise RespostaInvalida(f"«{m.group(1).strip()}» pode ser {sinal}{inteiro}{fracao} (ponto de milhar) ou "
                               f"{sinal}{inteiro},{fracao.rstrip('0') or '0'} (ponto decimal): escreva "
                               f"{sinal}{inteiro}{fracao} ou {sinal}{inteiro},{fracao.rstrip('0') or '0'}")
    if "," in numero and "." in numero:
        decimal = "," if numero.rfind(",") > numero.rfind(".") else "."
        numero = numero.replace("." if decimal == "," else ",", "").replace(",", ".")
    elif numero.count(".") > 1 and re.fullmatch(r"[+-]?\d{1,3}(\.\d{3})+", numero):
        numero = numero.replace(".", "")  # vários grupos de três: ponto de milhar
    else:
        numero = numero.replace(",", ".")
    if numero.count(".") > 1:
        return None
    try:
        valor = float(numero)
    except ValueError:
        return None
    casas = len(numero.split(".", 1)[1]) if "." in numero else 0
    if unidade == "%":
        return NumeroEscrito(round(valor / 100, casas + 2), casas + 2, "")
    return NumeroEscrito(valor, casas, unidade)


#: as unidades de memória binárias (potências de 1024), em minúsculas
_BYTES_BINARIOS = {"b": 1, "byte": 1, "bytes": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30}
#: as decimais (potências de 1000): KB, MB e GB
_BYTES_DECIMAIS = {"kb": 10**3, "mb": 10**6, "gb": 10**9}
#: com b minúsculo depois do prefixo, costuma ser bit: 128 kb são 128 000 bits (16 000 bytes)
_BITS = re.compile(r"^[kKmMgG]b$")


@dataclass(frozen=True)
class UnidadeDeMemoria:
    """Uma unidade de memória escrita depois de um número (a :attr:`NumeroEscrito.unidade`): quantos ``bytes`` vale
    uma dela e a ``familia`` — ``"binaria"`` (B, KiB, MiB, GiB: potências de 1024), ``"decimal"`` (KB, MB, GB:
    potências de 1000) ou ``"bits"`` (kb, Mb, gb, com b minúsculo: kilobits…, 8 bits por byte)."""

    bytes: float
    familia: str


def unidade_de_memoria(escrita: str) -> UnidadeDeMemoria | None:
    """A unidade de memória ``escrita`` depois de um número: ``"KiB"`` → 1024 bytes (binária), ``"KB"`` → 1000
    (decimal), ``"kb"`` → 125 (1000 bits), ``"bytes"`` → 1. Maiúsculas não importam, menos no b final depois de
    um prefixo (b minúsculo é bit). ``None`` se não for uma unidade de memória. Converter ``valor`` de uma unidade
    para outra é ``valor * de.bytes / para.bytes``."""
    u = escrita.strip()
    if u.lower() in _BYTES_BINARIOS:
        return UnidadeDeMemoria(_BYTES_BINARIOS[u.lower()], "binaria")
    if _BITS.match(u):
        return UnidadeDeMemoria(_BYTES_DECIMAIS[u.lower()] / 8, "bits")
    if u.lower() in _BYTES_DECIMAIS:
        return UnidadeDeMemoria(_BYTES_DECIMAIS[u.lower()], "decimal")
    return None


def tupla_da_virgula(y: Any) -> str | None:
    """Se ``y`` parece um número escrito com vírgula no código — ``0,576`` vira a tupla ``(0, 576)`` em Python —,
    a explicação (sem revelar resposta nenhuma); senão ``None``."""
    if (isinstance(y, tuple) and len(y) == 2 and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                     for v in y) and y[1] >= 0):
        escrito = f"{y[0]},{y[1]}"
        return (f"em Python, {escrito} (com vírgula) vira a tupla {y!r}, dois números: escreva "
                f"{escrito.replace(',', '.')} (com ponto), ou \"{escrito}\" entre aspas")
    return None



# --- a resposta crua, lida uma vez só (dentro do limite de tempo) ----------------------------------------------
# As comparações do corretor usam funções guardadas na importação e a aritmética dos próprios arrays: uma célula
# que troca np.allclose (np.allclose = lambda *a, **k: True) não muda o que o corretor aceita.
_asarray, _array, _empty, _ndenumerate = np.asarray, np.array, np.empty, np.ndenumerate
_errstate = np.errstate


def perto(a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-6, nan_igual: bool = True) -> bool:
    """``a`` e ``b`` (arrays de números da mesma forma) são iguais até ``atol + rtol·|b|`` em cada entrada? Infinitos
    de mesmo sinal são iguais; NaN é igual a NaN se ``nan_igual``. A conta é feita só com os operadores dos arrays
    (nada que uma célula possa trocar); formas diferentes → ``False``."""
    a, b = _asarray(a, dtype=float), _asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    with _errstate(all="ignore"):
        finitos = ((a - a) == 0) & ((b - b) == 0)  # inf − inf é NaN: um infinito só é igual a ele mesmo
        ok = (a == b) | (finitos & ((a - b).__abs__() <= atol + rtol * b.__abs__()))
        if nan_igual:
            ok = ok | ((a != a) & (b != b))
    return bool(ok.all())


def iguais(a: Any, b: Any, nan_igual: bool = False) -> bool:
    """``a`` e ``b`` (arrays) têm a mesma forma e as mesmas entradas, exatamente (o ``np.array_equal`` do corretor)."""
    a, b = _asarray(a), _asarray(b)
    if a.shape != b.shape:
        return False
    with _errstate(all="ignore"):
        ok = a == b
        if nan_igual and a.dtype.kind in "fc" and b.dtype.kind in "fc":
            ok = ok | ((a != a) & (b != b))
    return bool(_asarray(ok).all())


class LeituraFalhou(Exception):
    """Ler a resposta do estudante rodou código dele (o ``__array__``, o ``__float__`` de um objeto que ele
    devolveu) e esse código levantou uma exceção: o erro é dele, e a mensagem diz onde."""

    def __init__(self, tipo: str, excecao: BaseException):
        super().__init__(f"{tipo}: {type(excecao).__name__}: {excecao}")
        self.tipo, self.excecao = tipo, excecao

    def mensagem(self) -> str:
        if isinstance(self.excecao, RecursionError):
            return (f"a resposta ({self.tipo}) tem listas dentro de listas demais para ler (RecursionError): "
                    "devolva um array, ou uma lista de números")
        return (f"a resposta é um objeto {self.tipo}, e lê-lo como números rodou o código dele, que levantou "
                f"{type(self.excecao).__name__}: {self.excecao}. Devolva um array do numpy (ou uma lista de números)")


_TIPOS_SIMPLES = (bool, int, float, complex, str, bytes, type(None))
#: respostas que não se leem como números, mas que os formatos recusam sem rodar código do estudante
_TIPOS_RECUSADOS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.GeneratorType,
                    types.ModuleType, type)


def em_dados(y: Any) -> Any:
    """A resposta crua do estudante como **dados simples**: arrays do numpy, números, textos, listas, tuplas e
    dicionários deles — sem nenhum objeto cujo método o estudante escreveu. É aqui (dentro do limite de tempo do
    corretor) que roda o ``__array__`` ou o ``__float__`` de um objeto que ele devolveu; depois disso, ler, comparar
    e mostrar a resposta não roda mais código dele. Uma subclasse (de ``list``, ``tuple``, ``float``, ``str``,
    ``np.ndarray``) vira a classe de base. Levanta :class:`LeituraFalhou` se o código do estudante levantar algo.
    """
    tipo = type(y)
    if tipo in _TIPOS_SIMPLES or (isinstance(y, np.generic) and tipo.__module__ == "numpy"):
        return y
    try:
        if isinstance(y, np.ndarray):
            arr = _array(y, subok=False, copy=True)
            if arr.dtype != object:
                return arr
            saida = _empty(arr.shape, dtype=object)
            for i, v in _ndenumerate(arr):
                saida[i] = em_dados(v)
            return saida
        if isinstance(y, (list, tuple)):
            itens = [em_dados(v) for v in (tuple.__iter__(y) if isinstance(y, tuple) else list.__iter__(y))]
            return tuple(itens) if isinstance(y, tuple) else itens
        if isinstance(y, dict):
            return {em_dados(k): em_dados(v) for k, v in dict.items(y)}
        if isinstance(y, (set, frozenset)):
            return {em_dados(v) for v in (set.__iter__(y) if isinstance(y, set) else frozenset.__iter__(y))}
        for base, ler in ((bool, bool.__bool__), (int, int.__int__), (float, float.__float__),
                          (complex, lambda v: complex.__add__(v, 0j)), (str, str.__str__), (bytes, bytes.__bytes__)):
            if isinstance(y, base):
                return ler(y)
        if isinstance(y, _TIPOS_RECUSADOS) or str(getattr(tipo, "__module__", "")).startswith("helpers."):
            return y  # recusado sem rodar nada, ou um objeto do próprio corretor (o que um `preparar` devolve)
        arr = _asarray(y)  # um objeto do estudante: __array__, __array_interface__ ou uma sequência
        if arr.dtype == object and arr.shape == ():
            arr = _asarray(y, dtype=float)  # __float__, ou um TypeError que diz que não é número
        return em_dados(arr)
    except LeituraFalhou:
        raise
    except (TypeError, ValueError) as exc:
        if _escrito_pelo_estudante(type(exc), exc):
            raise LeituraFalhou(tipo.__name__, exc) from exc
        return _Opaco(tipo.__name__)
    except Exception as exc:  # noqa: BLE001 - o código do estudante quebrou ao ser lido: o erro é dele
        raise LeituraFalhou(tipo.__name__, exc) from exc


def _escrito_pelo_estudante(_tipo: type, exc: BaseException) -> bool:
    """A exceção saiu de código Python escrito fora do numpy (o ``__array__`` do estudante), não do próprio numpy
    dizendo que o objeto não é número?"""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    modulo = str(tb.tb_frame.f_globals.get("__name__", ""))
    return tb.tb_frame.f_code is not em_dados.__code__ and not modulo.startswith("numpy")


@dataclass(frozen=True)
class _Opaco:
    """Um objeto do estudante que não se lê como número (nem array, nem ``__float__``): fica só o nome do tipo."""

    tipo: str

    def __repr__(self) -> str:
        return f"<um objeto {self.tipo}>"


def _tipo(y: Any) -> str:
    return y.tipo if isinstance(y, _Opaco) else type(y).__name__


class Formato:
    """Como ler e comparar uma resposta. ``normalizar`` levanta :class:`RespostaInvalida`."""

    def normalizar(self, y: Any) -> Any:
        raise NotImplementedError

    def igual(self, a: Any, b: Any) -> bool:
        raise NotImplementedError

    def mostrar(self, x: Any) -> str:
        return repr(x)

    def forma(self, x: Any) -> Any:
        """O "tamanho" da resposta normalizada, para a mensagem de forma errada (``None`` se não se aplica)."""
        return None


@dataclass(frozen=True)
class Array(Formato):
    """Um array de números; aceita listas, tuplas, arrays de qualquer tipo numérico e escalares."""

    tol: float = 1e-6

    def normalizar(self, y: Any) -> np.ndarray:
        if isinstance(y, (str, bytes, dict, set)) or callable(y) or inspect.isgenerator(y):
            raise RespostaInvalida(f"a resposta deveria ser um array de números, mas veio {_tipo(y)}")
        try:
            complexa = np.iscomplexobj(y)
        except (TypeError, ValueError):
            complexa = False  # listas de tamanhos diferentes: a mensagem vem abaixo
        if complexa:
            raise RespostaInvalida("a resposta tem números complexos (com parte imaginária); a atenção só usa "
                                   "números reais — procure a conta que criou um complexo (uma raiz de negativo com "
                                   "np.emath, ou um 1j)")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arr = np.asarray(y, dtype=float)
        except (TypeError, ValueError, OverflowError) as exc:
            raise RespostaInvalida(
                f"não consegui ler a resposta ({_tipo(y)}) como um array de números — listas de tamanhos "
                f"diferentes, ou algo que não é número? ({exc})"
            ) from exc
        return arr

    def igual(self, a: np.ndarray, b: np.ndarray) -> bool:
        return perto(a, b, rtol=self.tol, atol=self.tol)

    def mostrar(self, x: np.ndarray) -> str:
        return vetor(x)

    def forma(self, x: np.ndarray) -> tuple:
        return x.shape


@dataclass(frozen=True)
class Numero(Formato):
    """Um número só: ``int``, ``float``, um escalar do numpy ou um array de forma ``()``."""

    # só por nome (Numero(rel=…)): assim o primeiro argumento de NumeroAproximado(3) é ``casas``, como se lê
    rel: float = field(default=1e-9, kw_only=True)
    abs: float = field(default=1e-12, kw_only=True)

    def normalizar(self, y: Any) -> float:
        if isinstance(y, bool):
            raise RespostaInvalida(f"a resposta deveria ser um número, mas veio um booleano ({y})")
        if (explicacao := tupla_da_virgula(y)) is not None:
            raise RespostaInvalida(explicacao)
        arr = Array().normalizar(y)
        if arr.shape != ():
            raise RespostaInvalida(f"a resposta deveria ser um único número, mas veio um array de forma {arr.shape}")
        return float(arr)

    def igual(self, a: float, b: float) -> bool:
        # a conta à mão (não math.isclose, que uma célula pode trocar); infinitos de mesmo sinal são iguais
        if a == b:
            return True
        diferenca = a - b if a >= b else b - a
        return diferenca <= max(self.rel * max(a if a >= 0 else -a, b if b >= 0 else -b), self.abs)

    def mostrar(self, x: float) -> str:
        """Para a frase do corretor, com vírgula decimal (``3.85`` → ``"3,85"``)."""
        return f"{x:.6g}".replace(".", ",")


def _descrever(y: Any) -> str:
    """O que veio, para uma mensagem: o próprio valor se for curto, senão o tipo (e a forma)."""
    texto = repr(y)
    if len(texto) <= 40:
        return texto
    try:
        forma = np.shape(y)
    except (TypeError, ValueError):
        forma = ()
    return type(y).__name__ + (f" de forma {forma}" if forma else "")


@dataclass(frozen=True)
class NumeroDe(Numero):
    """Um :class:`Numero` que diz, quando a resposta não é um número, que número se esperava."""

    o_que: str = "um número"

    def normalizar(self, y: Any) -> float:
        try:
            return super().normalizar(y)
        except RespostaInvalida:
            raise RespostaInvalida(f"a resposta deve ser {self.o_que}, mas veio {_descrever(y)}") from None


@dataclass(frozen=True)
class Bytes(NumeroDe):
    """Uma quantidade de bytes (um número), mostrada com os milhares separados: ``536 870 912 bytes``."""

    o_que: str = "um número (de bytes)"

    def mostrar(self, x: float) -> str:
        return f"{milhares(x)} bytes"


@dataclass(frozen=True)
class Mascara(Formato):
    """Uma máscara: booleanos, ou números que são só 0 e 1 (o dtype é conferido à parte, por um
    :class:`Erro` com ``sempre=True``, para que o erro tenha nome)."""

    def normalizar(self, y: Any) -> np.ndarray:
        if isinstance(y, (str, bytes, dict, set)) or callable(y):
            raise RespostaInvalida(f"a resposta deveria ser uma máscara (array de True/False), mas veio {_tipo(y)}")
        try:
            arr = np.asarray(y)
        except (TypeError, ValueError) as exc:
            raise RespostaInvalida(f"não consegui ler a resposta ({_tipo(y)}) como um array ({exc})") from exc
        if arr.dtype == np.bool_:
            return arr
        if arr.dtype.kind in "iuf" and bool(((arr == 0) | (arr == 1)).all()):
            return arr.astype(bool)
        valores = np.unique(arr)[:5] if arr.dtype.kind in "biuf" else "não numéricos"
        raise RespostaInvalida(f"a máscara deveria ser booleana (True/False); veio um array de dtype {arr.dtype} "
                               f"com valores {valores}")

    def igual(self, a: np.ndarray, b: np.ndarray) -> bool:
        return iguais(a, b)

    def mostrar(self, x: np.ndarray) -> str:
        return str(np.asarray(x).astype(int))

    def forma(self, x: np.ndarray) -> tuple:
        return x.shape


@dataclass(frozen=True)
class Sequencia(Formato):
    """Várias respostas juntas, como ``(saídas, pesos)`` ou ``(Q, K, V)``; aceita tupla ou lista."""

    partes: tuple[Formato, ...]
    nome: str  # como o enunciado escreve a resposta: "(saídas, pesos)"

    def normalizar(self, y: Any) -> tuple:
        if isinstance(y, np.ndarray) or not isinstance(y, (tuple, list)):
            raise RespostaInvalida(f"a função deve devolver {self.nome}; veio {_tipo(y)}")
        if len(y) != len(self.partes):
            raise RespostaInvalida(f"a função deve devolver {self.nome} ({len(self.partes)} coisas); veio "
                                   f"{_tipo(y)} de tamanho {len(y)}")
        return tuple(f.normalizar(p) for f, p in zip(self.partes, y))

    def igual(self, a: tuple, b: tuple) -> bool:
        return all(f.igual(x, z) for f, x, z in zip(self.partes, a, b))

    def mostrar(self, x: tuple) -> str:
        return "(" + ", ".join(f.mostrar(p) for f, p in zip(self.partes, x)) + ")"


class DuasLeituras:
    """Uma lista ou tupla de duas coisas tem duas leituras: um array só (as duas linhas de uma saída com duas
    *queries*, as saídas de um lote de 2 frases) ou o par ``(saída, pesos)``. Quem compara escolhe a leitura pela
    forma da resposta certa (:func:`leitura_para`)."""

    def __init__(self, inteira: np.ndarray | None, primeira: np.ndarray):
        self.inteira = inteira
        self.primeira = primeira

    def provavel(self) -> np.ndarray:
        """Sem a resposta certa para comparar: duas partes de mesma forma são um array só; senão, um par."""
        return self.inteira if self.inteira is not None else self.primeira


def leitura_para(x: Any, forma: tuple) -> Any:
    """A leitura de ``x`` que tem a forma ``forma`` (a da resposta certa), se uma tiver; senão, o par."""
    if not isinstance(x, DuasLeituras):
        return x
    if x.inteira is not None and x.inteira.shape == tuple(forma):
        return x.inteira
    return x.primeira


@dataclass(frozen=True)
class SaidaOuPar(Array):
    """A saída da atenção, aceitando também o par ``(saída, pesos)`` (só a saída é comparada). Uma lista de duas
    linhas (a saída de duas *queries* montada num laço) é lida como a saída, não como um par: quem decide é a
    forma da resposta certa."""

    def normalizar(self, y: Any) -> Any:
        if isinstance(y, (tuple, list)) and len(y) == 2 and np.ndim(y[0]) > 0:
            primeira = super().normalizar(y[0])
            try:
                inteira = super().normalizar(y) if np.shape(y[0]) == np.shape(y[1]) else None
            except (RespostaInvalida, TypeError, ValueError):  # uma segunda parte irregular: só o par
                inteira = None
            if isinstance(y, tuple) and inteira is not None and inteira.ndim == 3:
                inteira = None  # (saída, pesos) de mesma forma, com d = n: uma tupla de matrizes é o par
            return DuasLeituras(inteira, primeira)
        return super().normalizar(y)

    def igual(self, a: Any, b: Any) -> bool:
        b = b.primeira if isinstance(b, DuasLeituras) else b
        return super().igual(leitura_para(a, b.shape), b)

    def mostrar(self, x: Any) -> str:
        return super().mostrar(x.provavel() if isinstance(x, DuasLeituras) else x)

    def forma(self, x: Any) -> tuple:
        return (x.provavel() if isinstance(x, DuasLeituras) else x).shape


@dataclass(frozen=True)
class Texto(Formato):
    """Uma resposta curta em texto (um nome, uma letra): compara sem maiúsculas, espaços, sublinhados e subscritos
    (``"k2"``, ``" K₂ "``, ``"k_2"`` e ``"k₂"`` são a mesma resposta)."""

    def normalizar(self, y: Any) -> str:
        if not isinstance(y, str):
            raise RespostaInvalida(f"a resposta é um texto curto, entre aspas; veio {_tipo(y)}")
        return y.strip().lower().translate(str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")).replace(" ", "").replace("_", "")

    def igual(self, a: str, b: str) -> bool:
        return a == b

    def mostrar(self, x: str) -> str:
        return repr(x)


@dataclass(frozen=True)
class NumeroAproximado(Numero):
    """Um número dito "de cabeça": aceita o arredondamento até ``casas`` casas decimais e a vírgula
    decimal (``"0,67"`` vale ``0.665`` com duas casas). (O quiz da revisão é mais exigente: lá, quem
    escreve mais casas que as pedidas responde por elas — :func:`bate_na_precisao`.)"""

    casas: int = 2
    #: a unidade pedida (``"tokens"``, ``"MiB"``): "16 tokens" vale 16; outra unidade é nomeada, não convertida
    unidade: str = ""

    def normalizar(self, y: Any) -> float:
        if isinstance(y, str):  # um número digitado (numa caixa de previsão, entre aspas): o leitor da coleção
            lido = ler_numero(y)
            if lido is None:
                # sem algarismos no exemplo: um número de exemplo poderia ser a resposta de alguma previsão
                unidade = f", com ou sem «{self.unidade}» depois" if self.unidade else ""
                raise RespostaInvalida(f"a resposta é um número escrito com algarismos (vírgula ou ponto para as "
                                       f"decimais{unidade}); veio {y!r}")
            if lido.unidade and not _mesma_unidade(lido.unidade, self.unidade):
                if self.unidade:
                    raise RespostaInvalida(f"a pergunta pede o número em {self.unidade}, e veio em {lido.unidade} "
                                           f"({y.strip()!r}); o corretor não converte: escreva o número em "
                                           f"{self.unidade}")
                raise RespostaInvalida(f"a resposta é só um número, sem unidade; veio {y.strip()!r}, com "
                                       f"{lido.unidade!r}")
            y = lido.valor
        return super().normalizar(y)

    def igual(self, a: float, b: float) -> bool:
        return a == b or abs(a - b) <= tolerancia_de(self.casas)  # a == b: ∞ com ∞

    def mostrar(self, x: float) -> str:
        """Com uma casa a mais que a precisão pedida e vírgula decimal (``0.4555`` com 2 casas → ``"0,456"``)."""
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
        return (f"{x:.{self.casas + 1}f}".rstrip("0").rstrip(".") or "0").replace(".", ",")


def _mesma_unidade(escrita: str, pedida: str) -> bool:
    """``"token"`` vale ``"tokens"``; maiúsculas não importam, menos em bytes (``"MiB"`` ≠ ``"Mib"``, que é bit)."""
    if not pedida:
        return False
    if pedida.endswith("B") or escrita.endswith(("B", "b")):
        return escrita == pedida
    return escrita.lower().rstrip("s") == pedida.lower().rstrip("s")


@dataclass(frozen=True)
class NumeroDeCabeca(NumeroAproximado):
    """Uma previsão feita de cabeça, que é intuição e não conta: certa se cair a até ``folga`` da resposta
    (ninguém calcula e^1,414 de cabeça); mostrada como :class:`NumeroAproximado` (``casas`` + 1 casas, vírgula
    decimal), para o veredito trazer o valor exato. Os erros típicos de uma previsão com este formato devem
    trazer o seu próprio formato, estreito (um :class:`NumeroAproximado` sem folga), senão a folga os alargaria também.
    """

    folga: float = 0.0

    def igual(self, a: float, b: float) -> bool:
        return abs(a - b) <= max(self.folga, tolerancia_de(self.casas))
