"""Notebook ``atencao_aprendida``: os corretores dos exercícios em que se escreve código — o gradiente da
atenção (a resposta certa vem de diferenças finitas, não de uma fórmula) e um passo de Adam (no fim, a perda
precisa descer num lote fixo). As previsões ficam em :mod:`.previsoes`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...attention import attention_backward, scaled_dot_product_attention, softmax
from ...corretor import Caso, Erro, Exercicio, Regra, conferir, corretor_de, usa_nomes
from ...estabilidade import erros_de_estabilidade
from ...formato import decimal
from ...respostas import Array, Formato, Numero, RespostaInvalida, Sequencia, iguais, perto
from .frases import Frase, gerar_frases
from .rede import Receita, iniciar_modelo, perda_e_gradientes

__all__ = ["ADAM", "FRACAO_QUE_SEGUE", "GRADIENTE_ATENCAO", "REMENDO", "check_gradiente_atencao", "check_passo_adam",
           "check_remendo", "diferencas_finitas"]


# ---------------------------------------------------------------------------------------------
# Diferenças finitas
# ---------------------------------------------------------------------------------------------


def diferencas_finitas(perda: Callable[[], float], x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """``∂perda/∂x`` por diferenças centradas: mexe em um número de ``x`` por vez (no lugar, e devolve o
    valor antigo), ``(perda(x + h) − perda(x − h)) / 2h``. ``perda()`` lê ``x`` de fora. Forma de ``x``."""
    g = np.zeros(x.shape, dtype=float)
    for idx in np.ndindex(x.shape):
        velho = x[idx]
        x[idx] = velho + h
        mais = perda()
        x[idx] = velho - h
        menos = perda()
        x[idx] = velho
        g[idx] = (mais - menos) / (2 * h)
    return g


# ---------------------------------------------------------------------------------------------
# Exercício 1: o gradiente da atenção
# ---------------------------------------------------------------------------------------------


def _gradiente_numerico(q, k, v, grad_out, mask=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A resposta certa: diferenças finitas da perda ``L = Σ saída ⊙ grad_out`` (cujo gradiente em
    relação à saída é ``grad_out``), em float64."""
    q, k, v = (np.array(a, dtype=np.float64) for a in (q, k, v))
    go = np.asarray(grad_out, dtype=np.float64)

    def perda() -> float:
        return float(np.sum(scaled_dot_product_attention(q, k, v, mask)[0] * go))

    # o passo de q e de k mexe os escores em ~1e-4: com escores de milhares (q grande), um passo fixo em k
    # mudaria os escores demais; e um passo muito pequeno some no arredondamento de escores de milhares (~1e-12).
    # Com 1e-4, o erro de truncamento (~h²) e o de arredondamento (~1e-12 / h) ficam os dois abaixo de ~1e-8.
    # A saída é linear em v: ali o passo só precisa não sumir no arredondamento.
    s = 1 / np.sqrt(q.shape[-1])
    h_q = 1e-4 / max(1.0, s * float(np.abs(k).max()))
    h_k = 1e-4 / max(1.0, s * float(np.abs(q).max()))
    return diferencas_finitas(perda, q, h_q), diferencas_finitas(perda, k, h_k), diferencas_finitas(perda, v, 1e-4)


def _softmax_com_zeros(s: np.ndarray) -> np.ndarray:
    return softmax(s, axis=-1)  # uma linha toda -inf (toda mascarada) vira zeros


def _gradiente(q, k, v, grad_out, mask=None, *, trocar: Callable[[np.ndarray], np.ndarray] | None = None,
               escala: str = "raiz", escala_s: bool = True, escala_q: bool = True, escala_k: bool = True,
               soma: str = "certa", p_transposta: bool = True, ds_transposto: bool = False,
               mascara: str = "certa"):
    """O gradiente escrito à mão — certo com os padrões, ou com um erro clássico (os argumentos nomeados).

    ``mascara``: ``"certa"`` (-inf antes da softmax), ``"ignorada"``, ``"zero"`` (escores mascarados = 0) ou
    ``"depois"`` (os pesos multiplicados pela máscara depois da softmax, sem renormalizar)."""
    q, k, v, go = (np.asarray(a, dtype=np.float64) for a in (q, k, v, grad_out))
    s = 1 / np.sqrt(q.shape[-1]) if escala == "raiz" else 1 / q.shape[-1]
    escores = (s if escala_s else 1.0) * (q @ k.T)
    if mask is not None and mascara in ("certa", "zero"):
        escores = np.where(mask, escores, -np.inf if mascara == "certa" else 0.0)
    P = (trocar or _softmax_com_zeros)(escores)
    if mask is not None and mascara == "depois":
        P = P * np.asarray(mask, dtype=bool)
    dV = (P.T if p_transposta else P) @ go
    dP = go @ v.T
    if soma == "certa":
        dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))
    elif soma == "sem":
        dS = P * dP
    elif soma == "eixo":
        dS = P * (dP - (dP * P).sum(axis=0, keepdims=True))
    elif soma == "sem_p":
        dS = P * (dP - dP.sum(axis=-1, keepdims=True))
    elif soma == "sem_p_fora":
        dS = dP - (dP * P).sum(axis=-1, keepdims=True)
    else:  # "sinal"
        dS = P * (dP + (dP * P).sum(axis=-1, keepdims=True))
    A = dS.T if ds_transposto else dS
    dQ = (s if escala_q else 1.0) * (A @ k)
    dK = (s if escala_k else 1.0) * (A.T @ q)
    return dQ, dK, dV


def _com(**erro: Any) -> Callable[..., Any]:
    return lambda **e: _gradiente(**e, **erro)


_R2 = np.sqrt(2.0)
_K3 = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])  # com q = (a√2, b√2), os escores são (a, a + b, a + 2b)


def _casos_gradiente() -> list[Caso]:
    rng = np.random.default_rng(7)

    def r(*forma: int) -> np.ndarray:
        return np.round(rng.normal(size=forma), 1)

    mascara_causal = np.tri(4, dtype=bool)
    mascara_vazia = np.array([[True, True, False, False], [False, False, False, False], [True, False, True, True]])
    go_vazia = r(3, 2)
    go_vazia[1] = 0.0  # ninguém usa a saída de uma query sem keys: o gradiente que chega a ela é 0
    return [
        Caso("com o exemplo resolvido (q = (1, 0), as três keys e values do exemplo, grad_out = (1, 0))",
             {"q": np.array([[1.0, 0.0]]), "k": np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]),
              "v": np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]]), "grad_out": np.array([[1.0, 0.0]])}),
        Caso("com 3 queries e 3 keys (d_k = 2, d_v = 2)", {"q": r(3, 2), "k": r(3, 2), "v": r(3, 2), "grad_out": r(3, 2)}),
        Caso("com 2 queries e 4 keys (d_k = 3, d_v = 2)", {"q": r(2, 3), "k": r(4, 3), "v": r(4, 2), "grad_out": r(2, 2)}),
        Caso("com uma máscara causal (4 queries, 4 keys)",
             {"q": r(4, 2), "k": r(4, 2), "v": r(4, 3), "grad_out": r(4, 3), "mask": mascara_causal}, ("mask",)),
        Caso("com uma linha de escores muito negativos ([-1000, -1001, -1002])",
             {"q": np.array([[-1000 * _R2, -_R2]]), "k": _K3.copy(), "v": r(3, 2), "grad_out": r(1, 2)}),
        Caso("com escores de linhas separadas por milhares ([0, 1, 2] e [3000, 3001, 3002])",
             {"q": np.array([[0.0, _R2], [3000 * _R2, _R2]]), "k": _K3.copy(), "v": r(3, 2), "grad_out": r(2, 2)}),
        Caso("com uma linha de escores muito espalhados ([-1000, 0, 1000])",
             {"q": np.array([[1000 * _R2, 0.0]]), "k": np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]),
              "v": r(3, 2), "grad_out": r(1, 2)}),
        Caso("com tudo em float32 (escores [1, 2, 3] e [100, 101, 102])",
             {"q": np.array([[_R2, _R2], [100 * _R2, _R2]], dtype=np.float32), "k": _K3.astype(np.float32),
              "v": r(3, 2).astype(np.float32), "grad_out": r(2, 2).astype(np.float32)}),
        Caso("com uma query sem nenhuma key permitida (a linha 1 da máscara é toda False; como numa posição de "
             "preenchimento, o grad_out dessa linha é 0)",
             {"q": r(3, 2), "k": r(4, 2), "v": r(4, 2), "grad_out": go_vazia, "mask": mascara_vazia}, ("mask",)),
    ]


_TRES = Sequencia((Array(tol=1e-4), Array(tol=1e-4), Array(tol=1e-4)), "(grad_q, grad_k, grad_v)")


def _linhas_vazias(caso: Caso) -> np.ndarray | None:
    """As queries sem nenhuma key permitida (``None`` se o caso não tem uma)."""
    mask = caso.entradas.get("mask")
    if mask is None:
        return None
    vazias = ~np.asarray(mask, dtype=bool).any(axis=-1)
    return vazias if vazias.any() else None


def _nan_so_pela_linha_vazia(y: Any, certo: tuple, caso: Caso) -> bool:
    """A resposta tem NaN ou inf, e o dQ de todas as queries com alguma key permitida está certo: o NaN nasceu na
    linha toda mascarada (e dali se espalhou para o dK e o dV, que somam sobre as queries)."""
    vazias = _linhas_vazias(caso)
    if vazias is None:
        return False
    partes = _TRES.normalizar(y)
    if all(np.all(np.isfinite(p)) for p in partes) or partes[0].shape != certo[0].shape:
        return False
    return perto(partes[0][~vazias], certo[0][~vazias], rtol=1e-4, atol=1e-4, nan_igual=False)


def _ordem_trocada(y: Any, certo: tuple, _caso: Caso) -> bool:
    """Os três gradientes estão certos, mas devolvidos em outra ordem (``(dK, dQ, dV)``, ``(dV, dK, dQ)``…)."""
    partes = _TRES.normalizar(y)
    return any(all(Array(tol=1e-4).igual(partes[j], certo[i]) for i, j in enumerate(ordem))
               for ordem in itertools.permutations(range(3)) if ordem != (0, 1, 2))


def _explica_forma_gradiente(q, k, v, grad_out, mask=None) -> str:
    (n_q, d_k), (n_k, _), d_v = np.shape(q), np.shape(k), np.shape(v)[-1]
    return (f"Aqui q é {np.shape(q)}, k é {np.shape(k)}, v é {np.shape(v)} e grad_out é {np.shape(grad_out)}, então P "
            f"é ({n_q}, {n_k}). As formas de cada passo: dV = Pᵀ @ grad_out → ({n_k}, {d_v}); dP = grad_out @ vᵀ → "
            f"({n_q}, {n_k}); dS tem a forma de P; dQ = s · dS @ k → ({n_q}, {d_k}); dK = s · dSᵀ @ q → ({n_k}, {d_k}).")


def _diferencas_finitas_a_mao(fn: Callable[..., Any]) -> bool:
    """A função dá o gradiente com a precisão de diferenças finitas, e não com a da conta exata.

    Num caso de float64 bem comportado, a volta escrita à mão erra ~1e-16 (relativo); diferenças finitas
    centradas, com qualquer passo h, erram no mínimo ~1e-11 (o erro de truncamento ~h² e o de arredondamento
    ~ε/h não somem juntos). Uma resposta em float32 (erro ~1e-7) não conta: ela é de outro tipo."""
    rng = np.random.default_rng(3)
    q, k, v, go = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 3)), rng.normal(size=(3, 3))
    try:
        resposta = fn(q.copy(), k.copy(), v.copy(), go.copy())
        partes = [np.asarray(a) for a in resposta]
    except Exception:  # noqa: BLE001 - quem não roda aqui já foi julgado pelos casos
        return False
    exato = attention_backward(q, k, v, go)
    if len(partes) != 3 or any(a.dtype != np.float64 or a.shape != b.shape for a, b in zip(partes, exato)):
        return False
    erro = max(float(np.abs(a - b).max() / np.abs(b).max()) for a, b in zip(partes, exato))
    return 1e-12 < erro < 1e-4


_ESCALA = "Os escores são S = s · q kᵀ com s = 1/√d_k, então s também aparece nos dois gradientes que passam por S"

GRADIENTE_ATENCAO = Exercicio(
    nome="o gradiente da atenção",
    casos=_casos_gradiente,
    certo=_gradiente_numerico,
    formato=_TRES,
    acerto="Correto! Os seus três gradientes batem com as diferenças finitas (o corretor mexe em cada número de q, k "
           "e v, um de cada vez, e mede quanto a perda muda — nenhuma fórmula entra) em todos os casos: o exemplo "
           "resolvido, formas retangulares, máscara causal, uma query sem keys, escores muito negativos, linhas "
           "separadas por milhares, uma linha muito espalhada e float32 — e a sua função não chama "
           "attention.attention_backward nem diferencas_finitas. É a conta que o attention_backward do núcleo faz, e "
           "é por ela que o modelo deste notebook aprende.",
    erros=[
        Erro("ordem trocada na resposta",
             "Os três gradientes estão certos, mas na ordem errada: a função devolve (grad_q, grad_k, grad_v), na "
             "ordem dos argumentos q, k, v — return dQ, dK, dV.",
             quando=_ordem_trocada),
        Erro("NaN na linha toda mascarada",
             "Quase tudo certo: a resposta só saiu NaN (ou inf) por causa da query **sem nenhuma key permitida** (a "
             "linha inteira da máscara False) — e o NaN dela se espalha pelo dV e pelo dK inteiros, que somam sobre "
             "as queries. Com -inf em todos os escores da linha, o máximo também é -inf e -inf − (-inf) dá NaN. A "
             "convenção da coleção é peso 0 nessa linha (attention.softmax faz isso); outra saída finita também serve "
             "(np.where(mask, S, -1e9) dá pesos iguais, e como o grad_out dessa linha é 0, o gradiente não muda).",
             quando=_nan_so_pela_linha_vazia),
        *erros_de_estabilidade(lambda trocar, **e: _gradiente(**e, trocar=trocar)),
        Erro("ignorou a máscara",
             "Você ignorou a máscara: os escores proibidos (mask False) precisam virar -inf **antes** da softmax, para "
             "que P tenha 0 nesses lugares. Com P = 0 ali, dS = P ⊙ (…) também é 0, e nenhum gradiente chega às keys "
             "que a query não podia ver.",
             resposta=_com(mascara="ignorada")),
        Erro("escores mascarados = 0",
             "Você pôs 0 nos escores proibidos: e^0 = 1 não é um peso 0, e a query continua olhando para as keys "
             "proibidas. Os escores proibidos precisam virar -inf antes da softmax: np.where(mask, S, -np.inf).",
             resposta=_com(mascara="zero")),
        Erro("máscara depois da softmax",
             "Você aplicou a máscara **depois** da softmax (P * mask): os pesos que sobram não somam mais 1, e o "
             "gradiente sai de pesos que a atenção não usa. A máscara entra nos escores, antes da softmax: "
             "np.where(mask, S, -np.inf).",
             resposta=_com(mascara="depois")),
        Erro("sem a escala no dQ e no dK",
             f"Faltou a escala nos gradientes de q e de k. {_ESCALA}: dQ = s · dS @ k e dK = s · dSᵀ @ q.",
             resposta=_com(escala_q=False, escala_k=False)),
        Erro("dQ sem a escala",
             f"O dK está certo, mas o dQ ficou sem a escala. {_ESCALA}: dQ = s · dS @ k.",
             resposta=_com(escala_q=False)),
        Erro("dK sem a escala",
             f"O dQ está certo, mas o dK ficou sem a escala. {_ESCALA}: dK = s · dSᵀ @ q. (É fácil lembrar da "
             "escala só no primeiro.)",
             resposta=_com(escala_k=False)),
        Erro("escores sem a escala",
             "Na conta de ida, os escores ficaram sem a escala: S = q kᵀ, e não s · q kᵀ. Então P (e tudo o que vem "
             "dele) não é o da atenção. Calcule S = q @ k.T / np.sqrt(d_k) antes da softmax — e use o mesmo s em dQ e "
             "dK.",
             resposta=_com(escala_s=False)),
        Erro("escala 1/d em vez de 1/√d",
             "Você usou s = 1/d_k; a escala da atenção é 1/√d_k (o notebook da escala √d explica por quê): "
             "s = 1 / np.sqrt(d_k), nos escores e nos gradientes.",
             resposta=_com(escala="d")),
        Erro("sem o termo da soma (rowsum)",
             "Faltou o termo da soma: dS = P ⊙ dP trata cada peso como se ele mudasse sozinho, mas os pesos de uma linha "
             "somam 1 — aumentar um escore tira peso de todos os outros. O jacobiano da softmax (diag(p) − p pᵀ) dá "
             "dS = P ⊙ (dP − rowsum(dP ⊙ P)), com rowsum = (dP * P).sum(axis=-1, keepdims=True).",
             resposta=_com(soma="sem")),
        Erro("soma no eixo errado",
             "A soma de dP ⊙ P foi feita no eixo errado (axis=0, por colunas). O termo vem do jacobiano da softmax de "
             "**cada linha** (cada query tem a sua distribuição): some no último eixo, "
             "(dP * P).sum(axis=-1, keepdims=True).",
             resposta=_com(soma="eixo")),
        Erro("sem o P dentro da soma",
             "Dentro da soma faltou o P: o termo é rowsum(dP ⊙ P) — a média de dP ponderada pelos pesos (que, no "
             "exemplo resolvido, é a própria saída 6.15) —, não rowsum(dP).",
             resposta=_com(soma="sem_p")),
        Erro("sem o P ⊙ de fora",
             "Faltou multiplicar por P do lado de fora: dS = P ⊙ (dP − rowsum(dP ⊙ P)). Sem ele, até as keys com peso "
             "0 (as mascaradas) recebem gradiente, e o jacobiano da softmax, diag(p) − p pᵀ, não aparece inteiro.",
             resposta=_com(soma="sem_p_fora")),
        Erro("sinal trocado no termo da soma",
             "O sinal do termo da soma está trocado: dS = P ⊙ (dP − rowsum(dP ⊙ P)). Um escore só ganha gradiente "
             "positivo se o value dele puxa a saída **acima** da média atual.",
             resposta=_com(soma="sinal")),
        Erro("P no lugar de Pᵀ",
             "dV usa P, mas precisa de Pᵀ: o value j contribui para **todas** as saídas, a saída i com o peso P[i, j], "
             "então dV[j] = Σᵢ P[i, j] · dO[i], ou seja, dV = Pᵀ @ grad_out. (Com n_q ≠ n_k, P @ grad_out nem roda.)",
             resposta=_com(p_transposta=False)),
        Erro("dS transposto",
             "dS saiu transposto nos dois últimos passos: dQ = s · dS @ k (a linha i de dS é da query i) e "
             "dK = s · dSᵀ @ q (a coluna j de dS é da key j). Você trocou os dois.",
             resposta=_com(ds_transposto=True)),
    ],
    explica_forma=_explica_forma_gradiente,
    dica_de_forma="Cada gradiente tem a forma da sua entrada: grad_q como q, grad_k como k, grad_v como v.",
    dica_de_valor="Confira passo a passo com o exemplo resolvido: dP = grad_out @ vᵀ, dS = P ⊙ (dP − rowsum(dP ⊙ P)), "
                  "depois dQ, dK e dV.",
    regras=[
        Regra("usou attention_backward",
              "o exercício é escrever a volta à mão, e attention.attention_backward é a resposta pronta (o "
              "enunciado não a permite). Refaça com a conta de ida e os passos dV, dP, dS, dQ e dK; "
              "attention.softmax pode ficar.",
              lambda fn: usa_nomes(fn, {"attention_backward"})),
        Regra("usou diferenças finitas",
              "as diferenças finitas são o juiz do exercício, não a resposta: elas medem o gradiente mexendo em cada "
              "número, sem a regra da cadeia. Escreva a volta à mão — dV, dP, dS, dQ e dK.",
              lambda fn: usa_nomes(fn, {"diferencas_finitas"})),
        Regra("diferenças finitas à mão",
              "os números batem com as diferenças finitas só até umas 10 casas — a precisão de quem mexe em cada "
              "número e mede a perda, e não a da conta exata (a volta à mão erra ~1e-16). As diferenças finitas são o "
              "juiz, mesmo escritas por você: escreva a volta com a regra da cadeia — dV, dP, dS, dQ e dK.",
              _diferencas_finitas_a_mao),
    ],
)


@corretor_de(GRADIENTE_ATENCAO)
def check_gradiente_atencao(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(q, k, v, grad_out, mask=None)`` → ``(grad_q, grad_k, grad_v)``: o gradiente de
    ``L = Σ saída ⊙ grad_out`` em relação a ``q`` ``(n_q, d_k)``, ``k`` ``(n_k, d_k)`` e ``v`` ``(n_k, d_v)``,
    com ``saída = softmax(q kᵀ/√d_k) v`` e a máscara booleana (``True`` = pode olhar; vem por nome). Cada
    gradiente tem a forma da sua entrada; a resposta certa vem de diferenças finitas.
    """
    return conferir(GRADIENTE_ATENCAO, fn)


# ---------------------------------------------------------------------------------------------
# Exercício 2: um passo de Adam
# ---------------------------------------------------------------------------------------------


def _adam(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8, *, erro: str = "") -> tuple:
    """Um passo de Adam — certo, ou com o erro clássico ``erro``. Devolve ``(theta, m, v)`` novos."""
    theta, g, m, v = (np.array(a, dtype=np.float64) for a in (theta, g, m, v))
    if erro == "betas":
        beta1, beta2 = beta2, beta1
    if erro == "taxa_nos_momentos":
        g = taxa * g
    if erro == "sem_acumular":
        m_novo, v_novo = (1 - beta1) * g, (1 - beta2) * g * g
    elif erro == "sem_um_menos_beta":
        m_novo, v_novo = beta1 * m + g, beta2 * v + g * g
    else:
        m_novo = beta1 * m + (1 - beta1) * g
        v_novo = beta2 * v + (1 - beta2) * (g if erro == "g_em_v" else g * g)
    passo_t = t + 1 if erro == "t_mais_1" else t
    if erro == "sem_correcao":
        m_hat, v_hat = m_novo, v_novo
    else:
        m_hat, v_hat = m_novo / (1 - beta1**passo_t), v_novo / (1 - beta2**passo_t)
    with np.errstate(invalid="ignore"):
        direcao = m_hat / (v_hat + eps) if erro == "sem_raiz" else m_hat / (np.sqrt(v_hat) + eps)
    fator = {"sinal": -taxa, "sem_taxa": 1.0, "taxa_nos_momentos": 1.0}.get(erro, taxa)
    theta_novo = theta - fator * direcao
    if erro == "estado_velho":
        return theta_novo, m, v
    if erro == "devolveu_hat":
        return theta_novo, m_hat, v_hat
    return theta_novo, m_novo, v_novo


@dataclass(frozen=True)
class _Perdas:
    """As perdas de um treino curto (o caso "treino" do exercício de Adam)."""

    valores: np.ndarray


def _treino_curto(passo: Callable[..., Any], frases: list[Frase], receita: Receita, passos: int, taxa: float) -> _Perdas:
    """``passos`` passos de Adam, com ``passo`` (a função do estudante ou a nossa), num lote fixo."""
    modelo = iniciar_modelo(receita)
    p = modelo.parametros
    m = {nome: np.zeros_like(a) for nome, a in p.items()}
    v = {nome: np.zeros_like(a) for nome, a in p.items()}
    perdas = []
    for t in range(1, passos + 1):
        perda, grads = perda_e_gradientes(modelo, frases)
        perdas.append(perda)
        for nome in p:
            resposta = passo(p[nome].copy(), grads[nome], m[nome].copy(), v[nome].copy(), t, taxa)
            if not isinstance(resposta, (tuple, list)) or len(resposta) != 3:
                raise ValueError("a função deve devolver (theta, m, v); devolveu "
                                 f"{type(resposta).__name__}" + (f" de tamanho {len(resposta)}"
                                                                 if isinstance(resposta, (tuple, list)) else ""))
            theta_novo, m[nome], v[nome] = (np.asarray(x, dtype=np.float64) for x in resposta)
            p[nome][...] = theta_novo
    perdas.append(perda_e_gradientes(modelo, frases)[0])
    return _Perdas(np.array(perdas))


def _despachar(passo: Callable[..., Any], entradas: dict[str, Any]) -> Any:
    if "frases" in entradas:
        return _treino_curto(passo, **entradas)
    e = entradas
    return passo(e["theta"], e["g"], e["m"], e["v"], e["t"], e["taxa"])


def _variante(erro: str) -> Callable[..., Any]:
    return lambda **e: _despachar(functools.partial(_adam, erro=erro), e)


@dataclass(frozen=True)
class _PassoOuPerdas(Formato):
    """A resposta de um caso: ``(theta, m, v)`` de um passo, ou as perdas do treino curto."""

    tol: float = 1e-6

    def normalizar(self, y: Any) -> tuple[str, np.ndarray]:
        if isinstance(y, _Perdas):
            return ("perdas", y.valores)
        if isinstance(y, np.ndarray) or not isinstance(y, (tuple, list)):
            raise RespostaInvalida(f"a função deve devolver (theta, m, v), os três arrays novos; veio "
                                   f"{type(y).__name__}")
        if len(y) != 3:
            raise RespostaInvalida(f"a função deve devolver (theta, m, v), três coisas; veio {type(y).__name__} de "
                                   f"tamanho {len(y)}")
        partes = [Array().normalizar(x) for x in y]
        if len({p.shape for p in partes}) != 1:
            raise RespostaInvalida("theta, m e v devolvidos têm formas diferentes: "
                                   + ", ".join(str(p.shape) for p in partes))
        return ("passo", np.stack(partes))

    def igual(self, a: tuple[str, np.ndarray], b: tuple[str, np.ndarray]) -> bool:
        # as perdas do treino curto só precisam bater a 1%: com gradientes minúsculos, ε dentro ou fora da
        # raiz (as duas convenções existem) muda o passo, e cada passo já foi conferido nos outros casos
        rtol = 1e-2 if a[0] == "perdas" else self.tol
        return a[0] == b[0] and perto(a[1], b[1], rtol=rtol, atol=rtol * 1e-2, nan_igual=True)

    def mostrar(self, x: tuple[str, np.ndarray]) -> str:
        tipo, a = x
        if tipo == "perdas":
            return "perdas " + np.array2string(a, precision=3, separator=", ")
        return "theta = {}, m = {}, v = {}".format(*(np.array2string(p, precision=4, separator=", ") for p in a))

    def forma(self, x: tuple[str, np.ndarray]) -> tuple:
        return x[1].shape[1:] if x[0] == "passo" else x[1].shape


#: o treino curto do último caso: um modelo pequeno, 16 frases fixas, 10 passos
_RECEITA_EXERCICIO = Receita(d_model=8, n_camadas=1, n_cabecas=2, semente=3)


def _casos_adam() -> list[Caso]:
    casos = []  # tudo por nome: o adaptador repassa ao estudante na ordem certa
    for descricao, e in [
        ("no primeiro passo (t = 1, m = v = 0)",
         {"theta": np.array([0.5, -1.0, 2.0]), "g": np.array([0.2, -0.4, 1.0]), "m": np.zeros(3), "v": np.zeros(3),
          "t": 1, "taxa": 0.1}),
        ("no passo t = 3, com m e v vindos dos passos anteriores",
         {"theta": np.array([0.5, -1.0, 2.0]), "g": np.array([0.3, 0.5, -0.8]), "m": np.array([0.1, -0.2, 0.05]),
          "v": np.array([0.02, 0.01, 0.04]), "t": 3, "taxa": 0.1}),
        ("com uma matriz (2, 3) no passo t = 10",
         {"theta": np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 2.0]]), "g": np.array([[0.6, -0.3, 0.2], [1.5, -0.1, 0.4]]),
          "m": np.array([[0.2, -0.1, 0.1], [0.3, 0.05, -0.2]]), "v": np.array([[0.5, 0.2, 0.1], [1.0, 0.3, 0.2]]),
          "t": 10, "taxa": 0.01}),
    ]:
        casos.append(Caso(descricao, e, tuple(e)))
    treino = {"frases": gerar_frases(16, semente=5), "receita": _RECEITA_EXERCICIO, "passos": 10, "taxa": 0.01}
    casos.append(Caso("treinando um modelo pequeno (d_model = 8): 10 passos de Adam no mesmo lote de 16 frases",
                      treino, tuple(treino)))
    return casos


@functools.lru_cache(maxsize=1)
def _perdas_de_referencia() -> np.ndarray:
    caso = _casos_adam()[-1]
    return _despachar(_adam, caso.entradas).valores


def _acerto_adam() -> str:
    perdas = _perdas_de_referencia()
    return (f"Correto! O seu passo dá os mesmos theta, m e v que o Adam que treinou o modelo deste notebook, e com "
            f"ele 10 passos no mesmo lote de 16 frases levam a perda de {decimal(perdas[0], 3)} para {decimal(perdas[-1], 3)}.")


def _perda_nao_desceu(y: Any, _certo: Any, caso: Caso) -> bool:
    if not isinstance(y, _Perdas):
        raise ValueError("só se aplica ao treino curto")  # nos outros casos, o erro "não se aplica"
    return not y.valores[-1] < y.valores[0]


_FORMULA = "m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², θ ← θ − taxa · m̂ / (√v̂ + ε), com m̂ = m/(1 − β₁ᵗ) e v̂ = v/(1 − β₂ᵗ)"

ADAM = Exercicio(
    nome="um passo de Adam",
    casos=_casos_adam,
    certo=lambda **e: _despachar(_adam, e),
    formato=_PassoOuPerdas(),
    acerto=_acerto_adam,
    erros=[
        Erro("sinal trocado (subida do gradiente)",
             "Sinal trocado: você andou **a favor** do gradiente, e a perda sobe em vez de descer (no treino curto "
             "ela só aumenta). O gradiente aponta para onde a perda cresce; o passo vai para o outro lado: "
             "θ ← θ − taxa · m̂ / (√v̂ + ε).",
             resposta=_variante("sinal")),
        Erro("sem a taxa de aprendizado",
             "Faltou a taxa de aprendizado: m̂ / (√v̂ + ε) tem tamanho perto de 1 em cada número, e cada passo "
             "mexe os pesos por ±1 — grande demais. Multiplique por taxa: θ ← θ − taxa · m̂ / (√v̂ + ε).",
             resposta=_variante("sem_taxa")),
        Erro("taxa dentro dos momentos",
             "A taxa entrou no gradiente (g · taxa) antes dos momentos, como no SGD. No Adam isso não funciona: "
             "m̂ / √v̂ não muda quando g é multiplicado por um número, então a taxa some da conta e o passo fica "
             "perto de 1. Use g como veio nos momentos e aplique a taxa só na atualização de θ.",
             resposta=_variante("taxa_nos_momentos")),
        Erro("sem acumular m e v",
             f"m e v não acumulam: você calculou (1 − β₁)g e (1 − β₂)g², esquecendo o β₁m e o β₂v de antes. Eles "
             f"são médias que atravessam os passos — é isso que amortece o ruído de cada lote. {_FORMULA}.",
             resposta=_variante("sem_acumular")),
        Erro("sem o (1 − β) dos momentos",
             f"Faltou o (1 − β) diante do gradiente: m ← β₁m + g faz m crescer até 10 vezes o gradiente (e v até "
             f"1000 vezes g²), e a correção de viés deixa de acertar a escala. {_FORMULA}.",
             resposta=_variante("sem_um_menos_beta")),
        Erro("sem a correção de viés",
             "Faltou a correção de viés: m e v começam em 0, e nos primeiros passos são pequenos demais (no passo 1, "
             "m = 0.1·g). Divida por (1 − β₁ᵗ) e (1 − β₂ᵗ) antes de usar: m̂ = m / (1 − beta1**t), "
             "v̂ = v / (1 − beta2**t).",
             resposta=_variante("sem_correcao")),
        Erro("g no lugar de g² em v",
             "v guarda a média dos **quadrados** do gradiente (g * g), não do gradiente: com g negativo, v pode ficar "
             "negativo e √v vira NaN.",
             resposta=_variante("g_em_v")),
        Erro("sem a raiz de v̂",
             "Faltou a raiz: o passo divide por √v̂ (da ordem de |g|), não por v̂ (da ordem de g²). Sem a raiz, o "
             "tamanho do passo depende da escala do gradiente — justamente o que o Adam quer evitar.",
             resposta=_variante("sem_raiz")),
        Erro("β₁ e β₂ trocados",
             "β₁ e β₂ estão trocados: m (a média do gradiente) usa β₁ = 0.9 e v (a média de g²) usa β₂ = 0.999.",
             resposta=_variante("betas")),
        Erro("um passo adiantado (t + 1)",
             "A correção de viés usou t + 1: o t que a função recebe já é o número do passo (o primeiro é t = 1, "
             "com (1 − β₁¹) = 0.1). Não some 1 antes de usar.",
             resposta=_variante("t_mais_1")),
        Erro("devolveu m̂ e v̂ no lugar de m e v",
             "θ está certo, mas você devolveu m̂ e v̂, os momentos **corrigidos**, como o estado do próximo passo. A "
             "correção de viés é só para dar o passo: o estado que atravessa os passos são as médias m e v sem "
             "correção (senão, no passo seguinte, a correção é aplicada de novo em cima da anterior). Os corrigidos "
             "servem a este passo e acabam nele; o que volta, junto com θ, são as médias que vão continuar acumulando.",
             resposta=_variante("devolveu_hat")),
        Erro("devolveu m e v antigos",
             "θ está certo, mas você devolveu o m e o v que recebeu: o estado não anda, e no passo seguinte o Adam "
             "esquece tudo o que acumulou. Devolva os m e v **novos**: return theta, m, v (depois de atualizá-los).",
             resposta=_variante("estado_velho")),
        Erro("a perda não desceu",
             "No treino curto (10 passos de Adam no mesmo lote), a perda não desceu com o seu passo. Confira o sinal "
             f"e cada linha da fórmula: {_FORMULA}.",
             quando=_perda_nao_desceu),
    ],
    dica_de_valor=f"Confira cada linha da fórmula: {_FORMULA}.",
    # atualizar theta, m e v no lugar (m *= beta1; m += …) é o que os otimizadores de verdade fazem; g, não
    entradas_que_mudam=("theta", "m", "v"),
)


def _adaptador(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Chama a função do estudante caso a caso: direto nos casos de um passo, dentro de um treino curto no
    último caso."""

    def chamar(**entradas: Any) -> Any:
        return _despachar(fn, entradas)

    chamar.__name__ = getattr(fn, "__name__", "sua função")
    return chamar


@corretor_de(ADAM)
def check_passo_adam(fn: Callable[..., Any]) -> bool:
    """Confere ``fn(theta, g, m, v, t, taxa, beta1=0.9, beta2=0.999, eps=1e-8)`` → ``(theta, m, v)`` novos:
    um passo de Adam com correção de viés (``t`` começa em 1; ``theta``, ``g``, ``m`` e ``v`` têm a mesma forma).
    No caso do treino curto, a sua função treina um modelo pequeno: as perdas precisam ser as do Adam certo — e
    descer.
    """
    if not callable(fn):
        return conferir(ADAM, fn)
    return conferir(ADAM, _adaptador(fn))


# ---------------------------------------------------------------------------------------------
# Exercício 3: remendar uma cabeça na lacuna e medir quantas previsões seguem o sujeito trocado
# ---------------------------------------------------------------------------------------------


def _remendo_certo(limpa, contrafactual, cabeca, lacunas) -> np.ndarray:
    saida = np.array(limpa, dtype=np.float64, copy=True)
    linhas = np.arange(saida.shape[0])
    saida[linhas, cabeca, lacunas] = np.asarray(contrafactual)[linhas, cabeca, lacunas]
    return saida


def _remendo_errado(erro: str) -> Callable[..., Any]:
    def errado(limpa, contrafactual, cabeca, lacunas):
        saida = np.array(limpa, dtype=np.float64, copy=True)
        contra = np.asarray(contrafactual, dtype=np.float64)
        linhas = np.arange(saida.shape[0])
        if erro == "todas as posições":
            saida[:, cabeca] = contra[:, cabeca]
        elif erro == "todas as cabeças":
            saida[linhas, :, lacunas] = contra[linhas, :, lacunas]
        elif erro == "última posição":
            saida[:, cabeca, -1] = contra[:, cabeca, -1]
        elif erro == "lacunas cruzadas":
            saida[:, cabeca, lacunas] = contra[:, cabeca, lacunas]
        elif erro == "copiou tudo":
            saida = contra.copy()
        return saida

    return errado


def _outra_cabeca(limpa, contrafactual, cabeca, lacunas) -> list[np.ndarray]:
    n_cabecas = np.shape(limpa)[1]
    return [_remendo_certo(limpa, contrafactual, h, lacunas) for h in range(n_cabecas) if h != cabeca]


def _outra_cabeca_bate(bruta: Any, _certo: Any, caso: Caso) -> bool:
    """A resposta é o remendo certo, mas de outra cabeça (qualquer uma)."""
    try:
        y = Array(tol=1e-12).normalizar(bruta)
    except RespostaInvalida:
        return False
    return any(perto(y, e, rtol=0, atol=1e-12, nan_igual=False) for e in _outra_cabeca(**caso.entradas))


def _casos_remendo() -> list[Caso]:
    rng = np.random.default_rng(11)

    def saidas(*forma: int) -> np.ndarray:
        return np.round(rng.normal(size=forma), 2)

    return [
        Caso("com 3 frases, 2 cabeças, 5 posições e d_head = 2 (lacunas nas posições 4, 2 e 3: as frases mais curtas "
             "têm enchimento depois da lacuna), remendando a cabeça 1",
             {"limpa": saidas(3, 2, 5, 2), "contrafactual": saidas(3, 2, 5, 2), "cabeca": 1,
              "lacunas": np.array([4, 2, 3])}),
        Caso("com 4 frases, 3 cabeças, 6 posições e d_head = 3 (lacunas 5, 5, 3, 4), remendando a cabeça 0",
             {"limpa": saidas(4, 3, 6, 3), "contrafactual": saidas(4, 3, 6, 3), "cabeca": 0,
              "lacunas": np.array([5, 5, 3, 4])}),
        Caso("com 1 frase, 2 cabeças e a lacuna na última posição (6), remendando a cabeça 0",
             {"limpa": saidas(1, 2, 7, 2), "contrafactual": saidas(1, 2, 7, 2), "cabeca": 0, "lacunas": np.array([6])}),
    ]


_O_QUE_E_O_REMENDO = ("O remendo troca um só pedaço: a saída **dessa** cabeça, **só** na posição da lacuna de **cada** "
                      "frase (cada frase tem a sua), copiada da frase contrafactual; todo o resto fica como na limpa")

REMENDO = Exercicio(
    nome="o remendo de uma cabeça na lacuna",
    casos=_casos_remendo,
    certo=_remendo_certo,
    formato=Array(tol=1e-12),
    acerto="O remendo está certo: só a cabeça pedida, só na lacuna de cada frase, com a saída da frase contrafactual.",
    erros=[
        Erro("copiou tudo",
             "Você devolveu a saída contrafactual inteira: todas as cabeças, em todas as posições. Isso mede o que a "
             f"camada inteira leva, não o que uma cabeça leva até a lacuna. {_O_QUE_E_O_REMENDO}.",
             resposta=_remendo_errado("copiou tudo")),
        Erro("sem remendo",
             "A saída voltou igual à limpa: nada foi copiado da frase contrafactual. (Cuidado com uma cópia que "
             f"não volta para o resultado, como remendar um array e devolver outro.) {_O_QUE_E_O_REMENDO}.",
             resposta=lambda limpa, **_: np.array(limpa, dtype=np.float64)),
        Erro("todas as posições",
             "Você trocou a saída da cabeça em **todas** as posições da frase. Assim a frase contrafactual entra também "
             "nas palavras que a camada seguinte lê, e o efeito que se mede não é só o que a cabeça leva até a lacuna. "
             f"{_O_QUE_E_O_REMENDO}.",
             resposta=_remendo_errado("todas as posições")),
        Erro("todas as cabeças",
             "Na lacuna, você trocou a saída de **todas** as cabeças, e não só a pedida: o efeito medido seria o da "
             f"camada inteira. {_O_QUE_E_O_REMENDO}.",
             resposta=_remendo_errado("todas as cabeças")),
        Erro("cabeça errada",
             "Você remendou a posição certa, mas de **outra** cabeça. O índice da cabeça é o segundo eixo: "
             f"(frases, cabeças, posições, d_head). {_O_QUE_E_O_REMENDO}.",
             quando=_outra_cabeca_bate),
        Erro("última posição",
             "Você remendou a **última** posição (-1) de cada frase. Num lote, as frases mais curtas têm enchimento "
             "depois da lacuna: a última posição só é a lacuna na frase mais longa. A lacuna de cada frase está no "
             f"array das lacunas. {_O_QUE_E_O_REMENDO}.",
             resposta=_remendo_errado("última posição")),
        Erro("lacunas cruzadas",
             "Você deixou o eixo das frases inteiro (:) e indexou as posições com o array das lacunas: o numpy "
             "combina **todas** as frases com **todas** as lacunas, e cada frase recebeu o remendo também nas "
             "posições das lacunas das outras. O que se quer é um par (frase, a lacuna dessa frase) de cada vez — "
             "o índice das frases precisa andar junto com o das lacunas, e não ficar inteiro. "
             f"{_O_QUE_E_O_REMENDO}.",
             resposta=_remendo_errado("lacunas cruzadas")),
    ],
    dica_de_forma="A saída tem a forma de limpa: (frases, cabeças, posições, d_head).",
    dica_de_valor=f"{_O_QUE_E_O_REMENDO}.",
)

#: as previsões de um caso pequeno: 10 frases, em que seguir o sujeito trocado, acertar o sujeito original, mudar
#: de resposta e não seguir dão quatro frações diferentes (0,4; 0,3; 0,7; 0,6)
_LIMPAS = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0, 1])
_CONTRA = np.array([1, 2, 3, 0, 2, 3, 0, 1, 3, 0])
_PREVISTAS = np.array([1, 2, 3, 0, 0, 1, 2, 2, 2, 2])


def _fracao_certa(previstas, classes_limpas, classes_contrafactuais) -> float:
    return float(np.mean(np.asarray(previstas) == np.asarray(classes_contrafactuais)))


def _casos_fracao() -> list[Caso]:
    return [
        Caso("com 10 frases (4 seguem o sujeito trocado, 3 ficam no original e 3 vão para uma terceira forma)",
             {"previstas": _PREVISTAS.copy(), "classes_limpas": _LIMPAS.copy(),
              "classes_contrafactuais": _CONTRA.copy()}),
        Caso("com 4 frases em que todas seguem o sujeito trocado",
             {"previstas": np.array([3, 2, 1, 0]), "classes_limpas": np.array([0, 1, 2, 3]),
              "classes_contrafactuais": np.array([3, 2, 1, 0])}),
        Caso("com listas do Python (3 frases, nenhuma segue)",
             {"previstas": [0, 1, 1], "classes_limpas": [0, 1, 2], "classes_contrafactuais": [2, 3, 0]}),
    ]


FRACAO_QUE_SEGUE = Exercicio(
    nome="a fração que segue o sujeito trocado",
    casos=_casos_fracao,
    certo=_fracao_certa,
    formato=Numero(),
    acerto="A medida está certa: a fração das previsões que passou a ser a forma do sujeito contrafactual.",
    erros=[
        Erro("mediu a acurácia",
             "Você mediu a acurácia (a fração que continua na forma do sujeito **original**). O remendo pergunta "
             "outra coisa: quantas previsões **seguem** o sujeito da frase contrafactual, isto é, viraram a forma "
             "dele. Uma previsão pode sair da forma certa sem ir para a do sujeito trocado.",
             resposta=lambda previstas, classes_limpas, **_: float(np.mean(np.asarray(previstas)
                                                                            == np.asarray(classes_limpas)))),
        Erro("contou toda mudança",
             "Você contou toda previsão que **mudou** (previstas != classes_limpas). Mas mudar para uma terceira forma "
             "não é seguir o sujeito trocado: conte só as que viraram a forma do sujeito contrafactual.",
             resposta=lambda previstas, classes_limpas, **_: float(np.mean(np.asarray(previstas)
                                                                            != np.asarray(classes_limpas)))),
        Erro("as que não seguem",
             "Você contou as que **não** seguem o sujeito trocado: a comparação ficou invertida.",
             resposta=lambda previstas, classes_contrafactuais, **_: float(np.mean(
                 np.asarray(previstas) != np.asarray(classes_contrafactuais)))),
        Erro("contagem em vez de fração",
             "Você devolveu quantas seguem, e não a fração: falta dividir pelo número de frases.",
             resposta=lambda previstas, classes_contrafactuais, **_: float(np.sum(
                 np.asarray(previstas) == np.asarray(classes_contrafactuais)))),
    ],
    dica_de_valor="Compare as previsões com as classes contrafactuais, frase a frase, e tire a média.",
)


def _no_modelo(remendar: Callable[..., Any], medir: Callable[..., Any]) -> tuple[bool, str]:
    """Roda as duas funções do estudante no modelo de ``data/`` (a cabeça que mais olha para o sujeito, 200 frases de
    avaliação) e confere que dão o mesmo que as da lição — sem mostrar o número (ele é a resposta da previsão)."""
    from .analise import analisar_cabecas, contrafactuais, prever_com_remendo, remendo_na_lacuna
    from .arquivo import carregar_modelo
    from .frases import frases_de_avaliacao

    modelo = carregar_modelo()
    frases = frases_de_avaliacao()[:200]
    suj = analisar_cabecas(modelo, frases).medidas["sujeito"]
    c, h = (int(i) for i in np.unravel_index(int(np.argmax(suj)), suj.shape))
    contra = contrafactuais(frases)
    lacunas = np.array([f.posicao_alvo for f in frases])
    limpas, trocadas = np.array([f.classe for f in frases]), np.array([f.classe for f in contra])
    dela = prever_com_remendo(modelo, frases, contra, c, lambda limpa, outra: remendar(limpa, outra, h, lacunas))
    certa = prever_com_remendo(modelo, frases, contra, c, lambda limpa, outra: remendo_na_lacuna(limpa, outra, h,
                                                                                                   lacunas))
    if not iguais(dela, certa):
        return False, "no modelo, o seu remendo não deu as mesmas previsões que o da lição."
    fracao = float(medir(dela, limpas, trocadas))
    if abs(fracao - float(np.mean(certa == trocadas))) > 1e-12:
        return False, "no modelo, a sua medida não deu a mesma fração que a da lição."
    return True, ""


@corretor_de(REMENDO, FRACAO_QUE_SEGUE)
def check_remendo(remendar: Callable[..., Any], fracao_que_segue: Callable[..., Any]) -> bool:
    """Confere as duas funções do remendo de ativação e, se as duas estiverem certas, roda-as no modelo de ``data/``.

    ``remendar(limpa, contrafactual, cabeca, lacunas)`` recebe a saída das cabeças de uma camada ``(frases, cabeças,
    posições, d_head)`` nas frases e nas contrafactuais, a cabeça e a posição da lacuna de cada frase ``(frases,)``, e
    devolve uma cópia de ``limpa`` com só essa cabeça, só na lacuna, vinda de ``contrafactual``.
    ``fracao_que_segue(previstas, classes_limpas, classes_contrafactuais)`` devolve a fração das previsões que é a
    classe do sujeito contrafactual.
    """
    if not conferir(REMENDO, remendar) or not conferir(FRACAO_QUE_SEGUE, fracao_que_segue):
        return False
    try:
        ok, problema = _no_modelo(remendar, fracao_que_segue)
    except Exception as exc:  # noqa: BLE001 - o erro é do estudante e vira explicação
        ok, problema = False, f"no modelo, a sua função levantou {type(exc).__name__}: {exc}."
    if not ok:
        print(f"❌ Os casos pequenos passaram, mas {problema} Confira se ela funciona com outras formas (200 frases, "
              "2 cabeças, frases de comprimentos diferentes).")
        return False
    print("✅ No modelo de data/, as suas duas funções dão as mesmas previsões e a mesma fração que as da lição (o "
          "número aparece na célula seguinte, depois da sua previsão).")
    return True
