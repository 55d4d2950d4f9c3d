"""Leitura dos arquivos de ``data/`` (feitos aqui, nunca baixados da internet).

Por enquanto há um arquivo: ``data/quiz_revisao.json``, as perguntas e o gabarito do quiz do
notebook de revisão. O corretor (:func:`helpers.licoes.revisao.check_quiz`), o quiz clicável e o texto
das perguntas no notebook saem do mesmo arquivo, para que nunca fiquem diferentes um do outro.

A pasta ``data/`` fica na raiz do repositório, ao lado de ``helpers/`` (o pacote é instalado em modo
editável, ``pip install -e .``, então o caminho relativo ao código vale em qualquer diretório).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .respostas import bate_na_precisao, casas_escritas, tolerancia_de  # a regra de precisão, com os formatos

PASTA_DADOS = Path(__file__).resolve().parent.parent / "data"
ARQUIVO_QUIZ = "quiz_revisao.json"




@dataclass(frozen=True)
class ErroNumerico:
    """Uma resposta numérica errada conhecida, o equívoco que ela revela e a explicação."""

    valor: float
    explicacao: str
    tolerancia: float
    equivoco: str = ""
    casas: int | None = None


@dataclass(frozen=True)
class Pergunta:
    """Uma pergunta do quiz.

    ``tipo`` é ``"escolha"`` (a resposta é uma letra de ``opcoes``; ``erros`` explica cada letra
    errada e ``equivocos`` dá nome ao equívoco que ela revela) ou ``"numero"`` (a resposta é um número,
    pedido com ``casas`` casas decimais e aceito até meia unidade da última casa — a ``tolerancia`` —,
    na ``unidade`` pedida, se houver; ``erros_numericos`` lista valores errados conhecidos e ``dica``
    ajuda nos outros).
    """

    numero: int
    notebook: str
    revisar: str
    tipo: str
    enunciado: str
    resposta: str | float
    explicacao: str
    opcoes: dict[str, str] = field(default_factory=dict)
    erros: dict[str, str] = field(default_factory=dict)
    tolerancia: float = 0.0
    erros_numericos: tuple[ErroNumerico, ...] = ()
    dica: str = ""
    equivocos: dict[str, str] = field(default_factory=dict)
    casas: int | None = None
    unidade: str = ""


def _texto(bruto: dict, chave: str, onde: str) -> str:
    valor = bruto.get(chave)
    if not isinstance(valor, str) or not valor.strip():
        raise ValueError(f"{onde}: o campo {chave!r} precisa ser um texto não vazio (veio {valor!r}).")
    return valor


def _numero(valor: object, onde: str) -> float:
    if isinstance(valor, bool) or not isinstance(valor, (int, float)) or not math.isfinite(valor):
        raise ValueError(f"{onde}: esperava um número finito, veio {valor!r}.")
    return float(valor)


def _casas(valor: object, onde: str) -> int | None:
    if valor is None:
        return None
    if isinstance(valor, bool) or not isinstance(valor, int) or not 0 <= valor <= 6:
        raise ValueError(f"{onde}: 'casas' deve ser um inteiro de 0 a 6 (quantas casas decimais a pergunta pede).")
    return valor


def _pergunta(bruto: dict, posicao: int) -> Pergunta:
    onde = f"pergunta na posição {posicao}"
    numero = bruto.get("numero")
    if numero != posicao:
        raise ValueError(f"{onde}: o campo 'numero' deveria ser {posicao} (as perguntas são numeradas 1, 2, 3, … "
                         f"na ordem do arquivo), veio {numero!r}.")
    onde = f"pergunta {numero}"
    comum = {
        "numero": numero,
        "notebook": _texto(bruto, "notebook", onde),
        "revisar": _texto(bruto, "revisar", onde),
        "tipo": _texto(bruto, "tipo", onde),
        "enunciado": _texto(bruto, "enunciado", onde),
        "explicacao": _texto(bruto, "explicacao", onde),
    }
    if comum["tipo"] == "escolha":
        opcoes = bruto.get("opcoes")
        if not isinstance(opcoes, dict) or len(opcoes) < 2:
            raise ValueError(f"{onde}: uma pergunta de escolha precisa de pelo menos duas opções.")
        letras = list(opcoes)
        if letras != [chr(ord("a") + i) for i in range(len(letras))]:
            raise ValueError(f"{onde}: as opções devem ser as letras a, b, c, … em ordem; vieram {letras}.")
        resposta = _texto(bruto, "resposta", onde)
        if resposta not in opcoes:
            raise ValueError(f"{onde}: a resposta {resposta!r} não é uma das opções {letras}.")
        erros = bruto.get("erros", {})
        faltam = sorted(set(letras) - {resposta} - set(erros))
        sobram = sorted(set(erros) - set(letras) | ({resposta} & set(erros)))
        if faltam or sobram:
            raise ValueError(f"{onde}: cada opção errada precisa da sua explicação em 'erros' (e só elas); "
                             f"faltam {faltam}, sobram {sobram}.")
        explicacoes, equivocos = {}, {}
        for k, bruto_erro in erros.items():
            if isinstance(bruto_erro, dict):
                explicacoes[k] = _texto(bruto_erro, "explicacao", f"{onde}, opção {k}")
                equivocos[k] = _texto(bruto_erro, "equivoco", f"{onde}, opção {k}")
            else:
                explicacoes[k] = _texto(erros, k, onde)
        return Pergunta(**comum, resposta=resposta, opcoes={k: _texto(opcoes, k, onde) for k in letras},
                        erros=explicacoes, equivocos=equivocos)
    if comum["tipo"] == "numero":
        resposta_num = _numero(bruto.get("resposta"), f"{onde}, resposta")
        casas = _casas(bruto.get("casas"), onde)
        tol = tolerancia_de(casas) if casas is not None else _numero(bruto.get("tolerancia", 0.0), f"{onde}, tolerancia")
        unidade = bruto.get("unidade", "")
        if not isinstance(unidade, str):
            raise ValueError(f"{onde}: 'unidade' deve ser um texto (por exemplo \"KiB\").")
        conhecidos: list[ErroNumerico] = []
        for i, e in enumerate(bruto.get("erros", [])):
            onde_e = f"{onde}, erro {i + 1}"
            valor = _numero(e.get("valor"), onde_e)
            casas_e = _casas(e.get("casas", casas), onde_e)
            tol_e = tolerancia_de(casas_e) if casas_e is not None else _numero(e.get("tolerancia", tol), onde_e)
            aceito = (bate_na_precisao(valor, resposta_num, casas, casas_escritas(valor)) if casas is not None
                      else abs(valor - resposta_num) <= max(tol, tol_e))
            if aceito:
                raise ValueError(f"{onde}: o valor errado {valor:g} cai dentro da tolerância da resposta certa "
                                 f"{resposta_num:g}.")
            for outro in conhecidos:
                if abs(valor - outro.valor) < tol_e + outro.tolerancia - 1e-6:  # encostar não é sobrepor
                    raise ValueError(f"{onde}: os valores errados {outro.valor:g} e {valor:g} se sobrepõem com as "
                                     "tolerâncias dadas; o corretor não saberia qual explicação mostrar.")
            conhecidos.append(ErroNumerico(valor, _texto(e, "explicacao", onde_e), tol_e, e.get("equivoco", ""),
                                           casas_e))
        return Pergunta(**comum, resposta=resposta_num, tolerancia=tol, erros_numericos=tuple(conhecidos),
                        dica=_texto(bruto, "dica", onde), casas=casas, unidade=unidade)
    raise ValueError(f"{onde}: tipo {comum['tipo']!r} desconhecido; use 'escolha' ou 'numero'.")


def perguntas_do_quiz(bruto: dict) -> tuple[Pergunta, ...]:
    """Valida o conteúdo de um arquivo de quiz (já lido do JSON) e devolve as perguntas.

    Levanta ``ValueError`` se algo não fecha: numeração fora de ordem, resposta que não é uma das
    opções, opção errada sem explicação, um "erro conhecido" igual à resposta certa, …
    """
    lista = bruto.get("perguntas") if isinstance(bruto, dict) else None
    if not isinstance(lista, list) or not lista:
        raise ValueError("o quiz precisa de uma lista 'perguntas' não vazia.")
    return tuple(_pergunta(p, i) for i, p in enumerate(lista, start=1))


@lru_cache(maxsize=1)
def carregar_quiz() -> tuple[Pergunta, ...]:
    """As perguntas de ``data/quiz_revisao.json``, validadas (veja :func:`perguntas_do_quiz`)."""
    caminho = PASTA_DADOS / ARQUIVO_QUIZ
    try:
        bruto = json.loads(caminho.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ValueError(f"não encontrei o arquivo do quiz em data/{ARQUIVO_QUIZ}; ele vem com o repositório "
                         "(rode os notebooks a partir de um clone completo).") from exc
    return perguntas_do_quiz(bruto)
