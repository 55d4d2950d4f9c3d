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

from ...corretor import Erro, Previsao, Veredito, corretor_de, corrigir_previsao
from ...formato import decimal
from ...previsao import CaixaDePrevisao
from ...respostas import Formato, RespostaInvalida
from .analise import AnaliseCabecas, acuracia, analisar_cabecas, desligar_cabeca, efeito_do_remendo
from .frases import N_AVALIACAO, SEMENTE_AVALIACAO, frases_de_avaliacao

__all__ = ["CABECA_DESLIGADA", "N_AVALIACAO", "PREVISAO_CAMADA", "PREVISAO_DESLIGAR", "PREVISAO_REMENDO",
           "SEMENTE_AVALIACAO", "prever_camada", "prever_desligar", "prever_remendo"]


@functools.lru_cache(maxsize=1)
def _medidas_do_modelo() -> dict[str, Any]:
    """O modelo de ``data/`` medido em 1000 frases novas: a análise das cabeças."""
    from .arquivo import carregar_modelo

    modelo = carregar_modelo()
    frases = frases_de_avaliacao()
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


#: por que a cabeça da concordância tende a ficar na última camada — uma tendência, não uma lei
_POR_QUE = ("Na entrada da camada 0, o vetor de cada palavra é o embedding dela mais o da sua posição: o «os» do "
            "sujeito e o «os» do atrator têm o mesmo embedding de palavra, só a posição os separa — e a posição do "
            "sujeito muda de frase para frase. Para uma key dizer «sou o sujeito», ajuda ter contexto — saber que "
            "nenhuma preposição vem antes dela —, e esse contexto chega com uma camada de mistura. É uma tendência, "
            "não uma lei: a posição sozinha já dá alguma pista, e um treino com outra semente pode pôr essa cabeça na "
            "camada 0.")

PREVISAO_CAMADA = Previsao(
    nome="em que camada está a cabeça da concordância",
    certo=lambda: _camada_da_concordancia(_medidas_do_modelo()["analise"]),
    # o texto do modelo de data/; a caixa do notebook mostra o da análise que recebe (:func:`_revelar_camada`)
    revelar="A cabeça da concordância é a 1·1: ela põe 0,92 do peso da lacuna no sujeito. " + _POR_QUE,
    formato=_Camada(),
    erros=[
        Erro("a primeira camada",
             "As cabeças da camada 0 olham, sim, para o sujeito acima do uniforme: a posição ajuda um pouco (o sujeito "
             "vem antes do atrator). Mas a posição dele muda de frase para frase, e só a posição não basta para ter "
             "certeza.",
             resposta=lambda: 0),
    ],
    # a resposta como o veredito a mostra, e a cabeça pelo nome (o notebook só a nomeia depois da conferência)
    pistas=("resposta: a camada 1", "está na camada 1", "camada 1, cabeça 1", "1·1", "ficou na camada 1"),
    exemplo="0",
)


def _revelar_camada(m: AnaliseCabecas) -> str:
    suj, atr = m.medidas["sujeito"], m.medidas["atrator"]
    c, h = np.unravel_index(int(np.argmax(suj)), suj.shape)
    linhas = [f"cabeça {i}·{j}: {decimal(suj[i, j])} no sujeito, {decimal(atr[i, j])} no atrator"
              for i in range(suj.shape[0]) for j in range(suj.shape[1])]
    return (f"A cabeça da concordância é a {c}·{h}. Peso médio que a lacuna põe em cada sintagma, em "
            f"{m.n_frases} frases novas (atenção uniforme: {decimal(m.uniforme['sujeito'][0, 0])}): "
            + "; ".join(linhas) + ". " + _POR_QUE + _nas_sementes())


def _nas_sementes() -> str:
    """O que a tabela das sementes de ``data/`` diz sobre a camada dessa cabeça."""
    from .arquivo import ler_sementes

    linhas = ler_sementes()["linhas"]
    camadas = [ln["camada"] for ln in linhas]
    na_1 = sum(c == 1 for c in camadas)
    return (f" Nas {len(linhas)} sementes da tabela de data/, ela ficou na camada 1 em {na_1} e na camada 0 em "
            f"{len(linhas) - na_1}.")


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
    suj = med["analise"].medidas["sujeito"]
    conc = tuple(int(i) for i in np.unravel_index(int(np.argmax(suj)), suj.shape))
    sem_conc = desligar_cabeca(modelo, *conc)
    return {"acuracia": acuracia(modelo, frases), "sem": acuracia(desligar_cabeca(modelo, *CABECA_DESLIGADA), frases),
            "sem_conc": acuracia(sem_conc, frases),
            "sem_as_duas": acuracia(desligar_cabeca(sem_conc, *CABECA_DESLIGADA), frases)}


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


def _texto_desligar() -> str:
    """O que se mede ao desligar cada cabeça do modelo de ``data/`` (sem dizer a camada da cabeça da concordância:
    quem conferir esta antes da previsão da camada não a descobre aqui)."""
    d = _desligada()
    return (f"Sem a 1·0, o acerto fica em {decimal(100 * d['sem'], 1)}%, contra {decimal(100 * d['acuracia'], 1)}% com "
            "todas as cabeças: com a cabeça da concordância ligada, o que a 1·0 leva do sujeito até a lacuna já chega "
            f"por ela. Sem a cabeça da concordância, o acerto fica em {decimal(100 * d['sem_conc'], 1)}%; sem ela e a "
            f"1·0 juntas, em {decimal(100 * d['sem_as_duas'], 1)}%. A redundância tem um sentido só: com a da "
            "concordância ligada, a 1·0 é dispensável; com a 1·0 ligada, a da concordância ainda faz falta. Uma cabeça "
            "pode olhar muito para o lugar certo e, ainda assim, não fazer falta: o peso de atenção mostra para onde ela "
            "olha, não o quanto o modelo precisa dela — e «dispensável» ainda não quer dizer «não usada» (o remendo, "
            "mais abaixo, mede outra coisa).")


PREVISAO_DESLIGAR = Previsao(
    nome="desligar a cabeça 1·0",
    certo=_letra_desligar,
    # o texto medido no modelo de data/ (os testes conferem que é o de :func:`_texto_desligar`)
    revelar=("Sem a 1·0, o acerto fica em 100,0%, contra 100,0% com todas as cabeças: com a cabeça da "
             "concordância ligada, o que a 1·0 leva do sujeito até a lacuna já chega por ela. Sem a cabeça da "
             "concordância, o acerto fica em 93,9%; sem ela e a 1·0 juntas, em 59,1%. A redundância tem um "
             "sentido só: com a da concordância ligada, a 1·0 é dispensável; com a 1·0 ligada, a da concordância "
             "ainda faz falta. Uma cabeça pode olhar muito para o lugar certo e, ainda assim, não fazer falta: o "
             "peso de atenção mostra para onde ela olha, não o quanto o modelo precisa dela — e «dispensável» "
             "ainda não quer dizer «não usada» (o remendo, mais abaixo, mede outra coisa)."),
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
    # frases que diriam o efeito (a acurácia medida sem a 1·0 entra pelas pistas de :func:`_pistas_desligar`)
    pistas=("quase não muda nada", "1·0 é dispensável", "Sem a 1·0, o acerto fica em"),
    exemplo="a",
)


@corretor_de(PREVISAO_DESLIGAR)
def prever_desligar() -> CaixaDePrevisao:
    """A caixa da previsão do que acontece com a acurácia do modelo de ``data/`` (1000 frases novas) quando se
    desliga a cabeça 1·0 (:data:`CABECA_DESLIGADA`) — (a) abaixo de 50%, (b) entre 50% e 95%, (c) 95% ou mais (a
    resposta: (c); as erradas típicas: (a) e (b)). Os números medidos (conferidos pelos testes) aparecem com o
    veredito."""
    return CaixaDePrevisao(lambda valor: corrigir_previsao(replace(PREVISAO_DESLIGAR, revelar=_texto_desligar()), valor),
                           exemplo=PREVISAO_DESLIGAR.exemplo)


# ---------------------------------------------------------------------------------------------
# Remendar a cabeça da concordância: quantas previsões seguem o sujeito trocado?
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _remendos() -> dict[str, Any]:
    """A fração que segue o sujeito contrafactual com cada cabeça remendada na lacuna (modelo de ``data/``)."""
    med = _medidas_do_modelo()
    modelo, frases = med["modelo"], med["frases"]
    suj = med["analise"].medidas["sujeito"]
    conc = tuple(int(i) for i in np.unravel_index(int(np.argmax(suj)), suj.shape))
    cada = np.array([[efeito_do_remendo(modelo, frases, c, h) for h in range(modelo.n_cabecas)]
                     for c in range(modelo.n_camadas)])
    return {"conc": conc, "cada": cada}


def _letra_remendo() -> str:
    r = _remendos()
    f = r["cada"][r["conc"]]
    return "a" if f < 0.5 else ("b" if f < 0.95 else "c")


def _texto_remendo() -> str:
    r = _remendos()
    c, h = r["conc"]
    cada = r["cada"]
    outras = "; ".join(f"{i}·{j}: {decimal(100 * cada[i, j], 1)}%" for i in range(cada.shape[0])
                       for j in range(cada.shape[1]) if (i, j) != (c, h))
    return (f"Com a cabeça da concordância ({c}·{h}) remendada, {decimal(100 * cada[c, h], 1)}% das previsões seguem o "
            f"sujeito da frase contrafactual; com cada uma das outras, remendada sozinha: {outras}. Ela leva a maior "
            "parte da forma do sujeito até a lacuna, mas não toda: o resto chega por outros caminhos, que continuam "
            "dizendo o sujeito original. Desligar mede se o modelo **precisa** da cabeça (necessidade); remendar "
            "mede se o que ela leva **decide** a resposta (suficiência) — e as duas medidas podem discordar.")


PREVISAO_REMENDO = Previsao(
    nome="remendar a cabeça da concordância",
    certo=_letra_remendo,
    # o texto medido no modelo de data/ (os testes conferem que é o de :func:`_texto_remendo`)
    revelar=("Com a cabeça da concordância (1·1) remendada, 65,2% das previsões seguem o sujeito da frase "
             "contrafactual; com cada uma das outras, remendada sozinha: 0·0: 1,3%; 0·1: 0,0%; 1·0: 2,1%. Ela "
             "leva a maior parte da forma do sujeito até a lacuna, mas não toda: o resto chega por outros "
             "caminhos, que continuam dizendo o sujeito original. Desligar mede se o modelo **precisa** da cabeça "
             "(necessidade); remendar mede se o que ela leva **decide** a resposta (suficiência) — e as duas "
             "medidas podem discordar."),
    formato=_Letra(),
    erros=[
        Erro("ela decide sozinha",
             "Pareceria razoável — ela põe quase todo o peso no sujeito —, mas o peso não diz que ela é o único caminho: "
             "outras cabeças e a conexão residual também levam o sujeito original até a lacuna, e às vezes vencem.",
             resposta=lambda: "c"),
        Erro("ela quase não leva nada",
             "Desligá-la custa pouco, mas isso mede outra coisa: se o modelo se vira sem ela. Remendar pergunta se o que "
             "ela leva muda a resposta — e muda, na maior parte das frases.",
             resposta=lambda: "a"),
    ],
    pistas=("das previsões seguem o sujeito", "leva a maior parte da forma"),
    exemplo="a",
)


@corretor_de(PREVISAO_REMENDO)
def prever_remendo() -> CaixaDePrevisao:
    """A caixa da previsão do remendo: com a saída da cabeça da concordância, na lacuna, copiada de uma frase com o
    sujeito em outra forma, que fração das previsões do modelo de ``data/`` segue o sujeito trocado — (a) menos de
    50%, (b) de 50% a 95%, (c) 95% ou mais. Os números medidos aparecem com o veredito."""
    return CaixaDePrevisao(lambda valor: corrigir_previsao(replace(PREVISAO_REMENDO, revelar=_texto_remendo()), valor),
                           exemplo=PREVISAO_REMENDO.exemplo)
