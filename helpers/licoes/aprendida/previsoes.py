"""Notebook ``atencao_aprendida``: as caixas das previsões (prever, depois conferir), medidas no modelo de
``data/`` em 1000 frases novas — em que camada está a cabeça que mais olha para o sujeito, e o que acontece com a
acurácia ao desligar a cabeça 1·0.

As respostas só são calculadas quando o estudante clica em «Conferir» (carregar o modelo e medir leva uma fração
de segundo); as ``pistas`` de cada :class:`~helpers.corretor.Previsao` são os textos que as entregariam numa
página, e os testes conferem que batem com a medida.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...corretor import Erro, Formato, Previsao, RespostaInvalida, Veredito, corretor_de, corrigir_previsao
from ...formato import decimal
from ...previsao import CaixaDePrevisao
from .analise import AnaliseCabecas, acuracia, analisar_cabecas, desligar_cabeca
from .frases import gerar_frases

__all__ = ["CABECA_DESLIGADA", "PREVISAO_CAMADA", "PREVISAO_DESLIGAR", "prever_camada", "prever_desligar"]


#: as frases novas das medidas do notebook (o treino usa a semente 1)
SEMENTE_AVALIACAO = 2024
N_AVALIACAO = 1000


@functools.lru_cache(maxsize=1)
def _medidas_do_modelo() -> dict[str, Any]:
    """O modelo de ``data/`` medido em 1000 frases novas: a análise das cabeças."""
    from .arquivo import carregar_modelo

    modelo = carregar_modelo()
    frases = gerar_frases(N_AVALIACAO, semente=SEMENTE_AVALIACAO)
    return {"modelo": modelo, "frases": frases, "analise": analisar_cabecas(modelo, frases)}


# ---------------------------------------------------------------------------------------------
# Em que camada está a cabeça que mais olha para o sujeito?
# ---------------------------------------------------------------------------------------------


def _inteiros(texto: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", texto)]


@dataclass(frozen=True)
class _Camada(Formato):
    """Uma camada: ``1``, ``"1"``, ``"camada 1"``; uma cabeça como ``"1·0"`` ou ``(1, 0)`` vale pela camada."""

    def normalizar(self, y: Any) -> int:
        if isinstance(y, bool):
            raise RespostaInvalida("a resposta é o número de uma camada (0 ou 1); veio um booleano")
        if isinstance(y, (tuple, list)) and y:
            y = y[0]
        if isinstance(y, (int, np.integer)):
            return int(y)
        if isinstance(y, float) and y.is_integer():
            return int(y)
        if isinstance(y, str) and _inteiros(y):
            return _inteiros(y)[0]
        raise RespostaInvalida(f"a resposta é o número de uma camada, como 0 ou 1; veio {y!r}")

    def igual(self, a: int, b: int) -> bool:
        return a == b

    def mostrar(self, x: int) -> str:
        return f"a camada {x}"


def _camada_da_concordancia(m: AnaliseCabecas) -> int:
    suj = m.medidas["sujeito"]
    return int(np.unravel_index(int(np.argmax(suj)), suj.shape)[0])


#: por que a cabeça da concordância não pode estar na primeira camada
_POR_QUE = ("Na entrada da camada 0, o vetor de cada palavra é o embedding dela mais o da sua posição: o «os» do "
            "sujeito e o «os» do atrator têm o mesmo embedding de palavra, só a posição os separa — e a posição do "
            "sujeito muda de frase para frase. Para uma key dizer «sou o sujeito», ela precisa de contexto — saber que "
            "nenhuma preposição vem antes dela —, e contexto só existe depois de uma camada de mistura.")

PREVISAO_CAMADA = Previsao(
    nome="em que camada está a cabeça da concordância",
    certo=lambda: _camada_da_concordancia(_medidas_do_modelo()["analise"]),
    # o texto do modelo de data/; a caixa do notebook mostra o da análise que recebe (:func:`_revelar_camada`)
    revelar="A cabeça da concordância é a 1·1: ela põe 0,91 do peso da lacuna no sujeito. " + _POR_QUE,
    formato=_Camada(),
    erros=[
        Erro("a primeira camada",
             "As cabeças da camada 0 olham, sim, para o sujeito acima do uniforme: a posição ajuda um pouco (o sujeito "
             "vem antes do atrator). Mas a posição dele muda de frase para frase, e só a posição não basta para ter "
             "certeza.",
             resposta=lambda: 0),
    ],
    # a resposta como o veredito a mostra, e a cabeça pelo nome (o notebook só a nomeia depois da conferência)
    pistas=("resposta: a camada 1", "está na camada 1", "camada 1, cabeça 1", "1·1"),
    exemplo="0",
)


def _revelar_camada(m: AnaliseCabecas) -> str:
    suj, atr = m.medidas["sujeito"], m.medidas["atrator"]
    c, h = np.unravel_index(int(np.argmax(suj)), suj.shape)
    linhas = [f"cabeça {i}·{j}: {decimal(suj[i, j])} no sujeito, {decimal(atr[i, j])} no atrator"
              for i in range(suj.shape[0]) for j in range(suj.shape[1])]
    return (f"A cabeça da concordância é a {c}·{h}. Peso médio que a lacuna põe em cada sintagma, em "
            f"{m.n_frases} frases novas (atenção uniforme: {decimal(m.uniforme['sujeito'][0, 0])}): "
            + "; ".join(linhas) + ". " + _POR_QUE)


def _corrigir_camada(previsao: Any, analise: AnaliseCabecas | None = None) -> Veredito:
    """O veredito da previsão da camada, com a resposta e os números medidos em ``analise`` (padrão: o modelo de
    ``data/`` em 1000 frases novas)."""
    analise = _medidas_do_modelo()["analise"] if analise is None else analise
    return corrigir_previsao(replace(PREVISAO_CAMADA, certo=_camada_da_concordancia(analise),
                                     revelar=_revelar_camada(analise)), previsao)


@corretor_de(PREVISAO_CAMADA)
def prever_camada(analise: AnaliseCabecas | None = None) -> CaixaDePrevisao:
    """A caixa da previsão da camada da cabeça que mais olha, da lacuna, para o sujeito (a resposta: ``1``; a
    previsão errada típica: ``0``). ``analise``: a de :func:`analisar_cabecas` já feita no notebook (padrão: o
    modelo de ``data/`` medido aqui, em 1000 frases novas); a resposta e os números vêm dela, ao conferir."""
    return CaixaDePrevisao(lambda valor: _corrigir_camada(valor, analise), exemplo=PREVISAO_CAMADA.exemplo)


# ---------------------------------------------------------------------------------------------
# Desligar a cabeça 1·0: o que acontece com a acurácia?
# ---------------------------------------------------------------------------------------------

#: a cabeça que a previsão desliga: a que também prefere o sujeito, sem a nitidez da 1·1
CABECA_DESLIGADA = (1, 0)


@functools.lru_cache(maxsize=1)
def _desligada() -> dict[str, Any]:
    """A acurácia com todas as cabeças e sem :data:`CABECA_DESLIGADA` (1000 frases novas)."""
    med = _medidas_do_modelo()
    modelo, frases = med["modelo"], med["frases"]
    return {"acuracia": acuracia(modelo, frases), "sem": acuracia(desligar_cabeca(modelo, *CABECA_DESLIGADA), frases)}


@dataclass(frozen=True)
class _Letra(Formato):
    """Uma alternativa: ``"c"``, ``"C"``, ``"(c)"``, ``"letra c"``."""

    opcoes: str = "abc"

    def normalizar(self, y: Any) -> str:
        if not isinstance(y, str):
            raise RespostaInvalida(f"a resposta é uma letra, {', '.join(self.opcoes)}; veio {type(y).__name__}")
        letras = [c for c in re.sub(r"\bletra\b", "", y.lower()) if c.isalpha()]
        if len(letras) != 1 or letras[0] not in self.opcoes:
            raise RespostaInvalida(f"a resposta é uma letra só, {', '.join(self.opcoes)}; veio {y!r}")
        return letras[0]

    def igual(self, a: str, b: str) -> bool:
        return a == b

    def mostrar(self, x: str) -> str:
        return f"({x})"


def _letra_desligar() -> str:
    acc = _desligada()["sem"]
    return "a" if acc < 0.5 else ("b" if acc < 0.95 else "c")


PREVISAO_DESLIGAR = Previsao(
    nome="desligar a cabeça 1·0",
    certo=_letra_desligar,
    # os números do modelo de data/ em 1000 frases novas (os testes conferem que são os medidos)
    # (sem dizer a camada da cabeça da concordância: quem conferir esta antes da outra previsão não a descobre aqui)
    revelar="Sem a 1·0, o acerto fica em 99,4%, contra 100,0% com todas as cabeças: com a cabeça da concordância "
            "ligada, o que a 1·0 leva do sujeito até a lacuna já chega por ela. A da concordância é a cabeça de que o "
            "modelo mais precisa — desligar qualquer outra custa no máximo 1,8 ponto; desligá-la custa 31,8 —, mas "
            "não é a única: sem ela, o acerto ainda fica em 68,2%, e sem ela e a 1·0 juntas, em 58,1%. A redundância "
            "tem um sentido só: com a da concordância ligada, a 1·0 é dispensável; com a 1·0 ligada, a da "
            "concordância não é. Uma cabeça pode olhar muito para o lugar certo e, ainda assim, não fazer falta: o "
            "peso de atenção mostra para onde ela olha, não o quanto o modelo precisa dela.",
    formato=_Letra(),
    erros=[
        Erro("peso alto = indispensável",
             "Essa é a leitura ingênua de um mapa de atenção: um peso alto no lugar certo não quer dizer que a cabeça "
             "seja necessária. Outra cabeça faz o mesmo trabalho, com mais foco, e o modelo passa muito bem sem esta.",
             resposta=lambda: "a"),
        Erro("cai um pouco",
             "Pareceria razoável — ela olha bastante para o sujeito —, mas o que se mede é que quase nada muda: com a "
             "cabeça da concordância ligada, a informação do sujeito chega à lacuna por ela.",
             resposta=lambda: "b"),
    ],
    # a acurácia medida sem a 1·0 (os testes conferem que é a medida) e frases que diriam o efeito
    pistas=("99,4", "99.4", "quase não muda nada", "1·0 é dispensável", "no máximo 1,8 ponto"),
    exemplo="a",
)


@corretor_de(PREVISAO_DESLIGAR)
def prever_desligar() -> CaixaDePrevisao:
    """A caixa da previsão do que acontece com a acurácia do modelo de ``data/`` (1000 frases novas) quando se
    desliga a cabeça 1·0 (:data:`CABECA_DESLIGADA`) — (a) abaixo de 50%, (b) entre 50% e 95%, (c) 95% ou mais (a
    resposta: (c); as erradas típicas: (a) e (b)). Os números medidos (conferidos pelos testes) aparecem com o
    veredito."""
    return CaixaDePrevisao(lambda valor: corrigir_previsao(PREVISAO_DESLIGAR, valor), exemplo=PREVISAO_DESLIGAR.exemplo)
