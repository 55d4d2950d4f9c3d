"""Notebook 10: o painel de custo, os corretores da softmax online e da memória dos pesos, as soluções.

As contas do painel são comparadas com contagens independentes, feitas aqui por força bruta sobre
as máscaras (``band_mask``, máscara causal, blocos) e com as fórmulas fechadas do notebook.
"""

import inspect
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from helpers.corretor import corrigir
from helpers.efficient import attention_costs, band_count, band_mask, causal_tile_count, combine_states, computed_pairs
from helpers.licoes import custo as licao
from tests._corretor import confere_erro_nomeado
from tests._notebooks import solucoes_do_notebook

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "10_custo_quadratico.ipynb"


# --- contas de custo -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 5, 16, 37])
@pytest.mark.parametrize("w", [0, 1, 3, 40])
@pytest.mark.parametrize("causal", [False, True])
def test_band_count_is_the_number_of_true_in_the_band_mask(n, w, causal):
    assert band_count(n, w, causal=causal) == int(band_mask(n, window=w, causal=causal).sum())


@pytest.mark.parametrize(("n", "b"), [(8, 3), (16, 4), (10, 16), (7, 1)])
def test_causal_tile_count_by_brute_force(n, b):
    i = np.arange(n)[:, None] // b
    j = np.arange(n)[None, :] // b
    assert causal_tile_count(n, b) == int((j <= i).sum())  # blocos na diagonal ou abaixo dela, inteiros


def test_attention_costs_formulas():
    c = attention_costs(1024, 64, window=16, block_size=128)
    assert c["exata"] == {"escores": 1024**2, "flops": 4 * 1024**2 * 64, "numeros": 1024**2, "bytes": 4 * 1024**2}
    assert c["local"]["escores"] == 1024 * 33 - 16 * 17
    assert c["linear"] == {"escores": 0, "flops": 4 * 1024 * 64 * 64, "numeros": 64 * 64 + 64, "bytes": 4 * (64 * 64 + 64)}
    assert c["blocos"]["escores"] == 1024**2 and c["blocos"]["numeros"] == 128 * 128 + 2 * 128
    # a local guarda um bloco de 64 queries contra as 64 + 2·16 keys que ele vê, como local_attention faz
    assert c["local"]["numeros"] == 64 * (64 + 2 * 16)
    assert attention_costs(1024, 64, window=16, causal=True)["local"]["numeros"] == 64 * (64 + 16)
    assert attention_costs(1024, 64, window=300)["local"]["numeros"] == 300 * 900  # bloco = max(64, w)
    assert attention_costs(32, 64, window=16)["local"]["numeros"] == 32 * 32  # nunca mais que n × n
    # a tabela da seção 1: 4 MiB, 256 MiB, 4 GiB, 64 GiB
    for n, esperado in ((1024, 4 * 2**20), (8192, 256 * 2**20), (32768, 4 * 2**30), (131072, 64 * 2**30)):
        assert attention_costs(n)["exata"]["bytes"] == esperado
    causal = attention_costs(1024, 64, window=16, block_size=128, causal=True)
    assert causal["blocos"]["escores"] == 36 * 128 * 128  # 8 blocos de queries: 1 + 2 + … + 8 blocos de keys
    assert causal["exata"]["escores"] == 1024**2  # a exata calcula tudo e descarta metade
    with pytest.raises(ValueError, match="n"):
        attention_costs(0)


# --- o padrão de pares (a imagem do painel) ----------------------------------------------------------


def _padrao_bruto(n, metodo, w, b, causal, r):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    t = j - i
    if metodo == "local":
        nivel = ((t >= -w) & (t <= (0 if causal else w))).astype(float)
    elif metodo == "exata":
        nivel = np.where(t <= 0, 1.0, 0.5) if causal else np.ones((n, n))
    elif metodo == "blocos":
        nivel = np.where(t <= 0, 1.0, np.where(i // b == j // b, 0.5, 0.0)) if causal else np.ones((n, n))
    else:
        nivel = np.zeros((n, n))
    s = n // r
    return nivel.reshape(r, s, r, s).mean(axis=(1, 3))


@pytest.mark.parametrize("n", [16, 128, 512])
@pytest.mark.parametrize("metodo", ["exata", "local", "linear", "blocos"])
@pytest.mark.parametrize("causal", [False, True])
def test_padrao_custo_matches_brute_force(n, metodo, causal):
    for w, b in ((1, 16), (5, 64), (40, 512), (600, 32)):
        esperado = _padrao_bruto(n, metodo, w, b, causal, min(n, 128))
        np.testing.assert_allclose(computed_pairs(n, metodo, w, b, causal), esperado, atol=1e-12)


def test_padrao_custo_fraction_matches_the_counts():
    # a média da imagem (nível 1 = calculado e usado) bate com a contagem exata da faixa
    for n, w in ((131072, 4096), (4096, 16)):
        img = computed_pairs(n, "local", w, 128, False)
        assert math.isclose(img.mean(), band_count(n, w) / n**2, rel_tol=1e-9)
    img = computed_pairs(65536, "blocos", 16, 64, True)  # células (512) maiores que os blocos (64)
    calculados = causal_tile_count(65536, 64)
    usados = 65536 * 65537 // 2
    assert math.isclose(img.mean(), (usados + 0.5 * (calculados - usados)) / 65536**2, rel_tol=1e-9)


# --- o painel --------------------------------------------------------------------------------------


def _numeros_da_tabela(html):
    return [int(x.replace(" ", "")) for x in re.findall(r"<td[^>]*>(\d[\d ]*) \(", html)]


def test_painel_default_state():
    p = licao.painel_custo()
    e = p.estado
    assert (e["n"], e["janela"], e["bloco"], e["metodo"], e["causal"], e["d"]) == (1024, 16, 128, "local", False, 64)
    assert e["custos"] == attention_costs(1024, 64, window=16, block_size=128)
    assert math.isclose(e["fracao_local"], (1024 * 33 - 16 * 17) / 1024**2)
    assert e["padrao"].shape == (128, 128)
    assert _numeros_da_tabela(p.texto.value) == [1024**2, 1024 * 33 - 16 * 17, 0, 1024**2]
    assert "4,00 MiB" in p.texto.value  # a exata com 1k tokens


@pytest.mark.parametrize(
    ("controle", "valor"),
    [("n", 2048), ("janela", 17), ("bloco", 256), ("metodo", "linear"), ("causal", True)],
)
def test_every_control_changes_numbers_or_png_with_one_step(controle, valor):
    p = licao.painel_custo()
    png, texto, custos = p.imagem.value, p.texto.value, p.estado["custos"]
    p.controles[controle].value = valor
    e = p.estado
    assert p.imagem.value != png
    esperado = attention_costs(e["n"], 64, window=e["janela"], block_size=e["bloco"], causal=e["causal"])
    assert e["custos"] == esperado
    if controle != "metodo":  # o método só muda a figura; os outros mudam também os números
        assert e["custos"] != custos and p.texto.value != texto


def test_painel_big_n_causal_blocks():
    p = licao.painel_custo()
    p.definir(n=131072, metodo="blocos", causal=True, bloco=512)
    e = p.estado
    assert e["custos"]["exata"]["bytes"] == 64 * 2**30 and "64,0 GiB" in p.texto.value
    assert e["custos"]["blocos"]["escores"] == causal_tile_count(131072, 512)
    assert 0.5 < e["fracao_blocos"] < 0.51
    # a imagem: o futuro fora dos blocos da diagonal não é calculado (0), o passado é (1)
    assert e["padrao"][0, -1] == 0 and e["padrao"][-1, 0] == 1


def test_painel_block_larger_than_n_and_window_larger_than_n():
    p = licao.painel_custo()
    p.definir(n=16, bloco=512, janela=512, metodo="blocos")
    e = p.estado
    assert e["custos"]["blocos"]["numeros"] == 16 * 16 + 2 * 16  # o bloco não passa de n
    assert e["custos"]["local"]["escores"] == 16 * 16  # a janela cobre tudo
    assert np.all(e["padrao"] == 1)


def test_painel_rejects_bad_arguments_in_portuguese():
    with pytest.raises(ValueError, match="potência|uma de"):
        licao.painel_custo(n=1000)
    with pytest.raises(ValueError, match="método"):
        licao.painel_custo(metodo="esparsa")



# --- corretor: combinar dois estados ---------------------------------------------------------------


def combinar_sem_guarda(a, b):
    """Certo com um estado de verdade; com os dois vazios, -inf − (-inf) dá NaN."""
    m_a, l_a, acc_a = a
    m_b, l_b, acc_b = b
    m = max(m_a, m_b)
    fa, fb = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


def combinar_certo(a, b):
    if max(a[0], b[0]) == -np.inf:  # os dois vazios: nada a juntar
        return a
    return combinar_sem_guarda(a, b)


def combinar_lista_math(a, b):
    """Uma lista, com math.exp e floats do Python, e acc montado coordenada por coordenada."""
    m = a[0] if a[0] > b[0] else b[0]
    if m == -math.inf:
        return [m, 0.0, [0.0] * len(a[2])]
    fa, fb = math.exp(a[0] - m), math.exp(b[0] - m)
    acc = [float(x) * fa + float(y) * fb for x, y in zip(a[2], b[2])]
    return [m, float(a[1]) * fa + float(b[1]) * fb, acc]


def combinar_numpy_0d(a, b):
    """m e l como arrays de forma () e o estado vazio tratado à parte."""
    if np.isneginf(a[0]):
        return np.array(b[0]), np.array(b[1]), np.array(b[2])
    m = np.maximum(a[0], b[0])
    fatores = np.exp(np.array([a[0], b[0]]) - m)
    return m, fatores @ np.array([a[1], b[1]]), fatores @ np.stack([a[2], b[2]])


def _com_fatores(fator_a, fator_b, *, l_ok=True, acc_ok=True, dividir=False):
    def f(a, b):
        m_a, l_a, acc_a = a
        m_b, l_b, acc_b = b
        m = max(m_a, m_b)
        fa, fb = fator_a(m_a, m), fator_b(m_b, m)
        l_ = l_a * fa + l_b * fb if l_ok else l_a + l_b
        acc = acc_a * fa + acc_b * fb if acc_ok else acc_a + acc_b
        return m, l_, (acc / l_ if dividir else acc)
    return f


CERTO = lambda m_x, m: math.exp(m_x - m)  # noqa: E731
UM = lambda m_x, m: 1.0  # noqa: E731
INVERTIDO = lambda m_x, m: math.exp(m - m_x)  # noqa: E731


def maximo_errado(a, b):
    m, l_, acc = combinar_certo(a, b)
    return min(a[0], b[0]), l_, acc


def divide_cada_um(a, b):
    m, l_, _ = combinar_certo(a, b)
    fa, fb = math.exp(a[0] - m), math.exp(b[0] - m)
    return m, l_, a[2] / a[1] * fa + b[2] / b[1] * fb


def nan_no_vazio(a, b):
    m = max(a[0], b[0])
    fa, fb = math.exp(a[0] - m), math.exp(b[0] - m)
    with np.errstate(all="ignore"):
        l_a = float(np.float64(a[1]) / np.float64(a[1]) * a[1])  # dividir pelo l antigo: 0 / 0 no estado vazio
    return m, l_a * fa + b[1] * fb, a[2] * fa + b[2] * fb


ERROS_COMBINAR = {
    "máximo errado": (maximo_errado, "max(m_a, m_b)"),
    "NaN com o estado vazio": (nan_no_vazio, "NaN ou inf"),
    "NaN com os dois vazios": (combinar_sem_guarda, "Com os **dois** estados vazios"),
    "antigo sem reescalar": (_com_fatores(UM, CERTO), "reescalar o estado **antigo**"),
    "novo sem reescalar": (_com_fatores(CERTO, UM), "reescalar o estado **novo**"),
    "nenhum reescalado": (_com_fatores(UM, UM), "sem reescalar nenhum"),
    "acc sem reescalar": (_com_fatores(CERTO, CERTO, acc_ok=False), "acumulador acc não foi reescalado"),
    "l sem reescalar": (_com_fatores(CERTO, CERTO, l_ok=False), "soma l não foi reescalada"),
    "sinal trocado no expoente": (_com_fatores(INVERTIDO, INVERTIDO), "Sinal trocado"),
    "fator como razão de exponenciais (instável)": (_com_fatores(lambda m_x, m: np.exp(m_x) / np.exp(m),
                                                                lambda m_x, m: np.exp(m_x) / np.exp(m)), "e^1000"),
    "dividiu por l cedo demais": (_com_fatores(CERTO, CERTO, dividir=True), "cedo demais"),
    "dividiu cada acc pelo seu l": (divide_cada_um, "antes de combinar"),
    "l e acc trocados": (lambda a, b: (lambda m, soma, acc: (m, acc, soma))(*combine_states(a, b)), "(m, acc, l)"),
}


@pytest.mark.parametrize("nome", list(ERROS_COMBINAR))
def test_check_combinar_names_each_mistake(nome):
    confere_erro_nomeado(licao.COMBINAR_ESTADOS, ERROS_COMBINAR, nome)


@pytest.mark.parametrize("nome", ["nenhum reescalado", "NaN com o estado vazio", "NaN com os dois vazios"])
def test_check_combinar_prints_the_mistake(nome, capsys):
    fn, trecho = ERROS_COMBINAR[nome]
    assert licao.check_combinar_estados(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida and trecho in saida, saida


@pytest.mark.parametrize("fn", [combinar_certo, combine_states, combinar_lista_math, combinar_numpy_0d])
def test_check_combinar_accepts_right_answers_written_differently(fn, capsys):
    assert licao.check_combinar_estados(fn) is True
    saida = capsys.readouterr().out
    assert "✅" in saida and "sem nunca calcular e^1000" in saida


def test_check_combinar_blockwise_reaches_the_exact_attention(capsys):
    """Aplicada bloco a bloco (os três últimos casos), a combinação certa dá a atenção exata; o acerto a mostra."""
    casos = [c for c in licao.COMBINAR_ESTADOS.casos() if "perto de 1000" in c.descricao]
    assert len(casos) == 3 and np.isneginf(casos[0].entradas["estado_a"][0])
    estado = casos[0].entradas["estado_a"]
    for caso in casos:
        np.testing.assert_allclose(caso.entradas["estado_a"][2], estado[2], rtol=1e-12)  # parte do estado anterior
        estado = combinar_certo(estado, caso.entradas["estado_b"])
    saida = estado[2] / estado[1]
    rng = np.random.default_rng(9)
    z, vs = 1000.0 + rng.normal(size=9) * 3, rng.normal(size=(9, 2))
    e = np.exp(z - z.max())
    np.testing.assert_allclose(saida, e / e.sum() @ vs, rtol=1e-9)
    assert licao.check_combinar_estados(combinar_certo) is True
    assert f"({saida[0]:.4f}, {saida[1]:.4f})" in capsys.readouterr().out


def test_check_combinar_wrong_format_and_stub(capsys):
    def sem_tripla(a, b):
        return 1.0

    def stub(a, b):
        raise NotImplementedError("complete aqui")

    for fn, trecho in ((sem_tripla, "tripla"), (stub, "ainda não foi implementada")):
        assert licao.check_combinar_estados(fn) is False
        assert trecho in capsys.readouterr().out, fn.__name__
    v = corrigir(licao.COMBINAR_ESTADOS, lambda a, b: combinar_certo(a, b)[:2])
    assert v.erro == "tipo" and "tripla (m, l, acc)" in v.mensagem and "tamanho 2" in v.mensagem, v.mensagem
    v = corrigir(licao.COMBINAR_ESTADOS, lambda a, b: (*combinar_certo(a, b)[:2], "acc"))
    assert v.erro == "tipo" and "acc:" in v.mensagem, v.mensagem
    v = corrigir(licao.COMBINAR_ESTADOS, lambda a, b: (*combinar_certo(a, b)[:2], combinar_certo(a, b)[2][None, :]))
    assert v.erro == "forma" and "(2,), mas veio (1, 2)" in v.mensagem and "forma de acc" in v.mensagem, v.mensagem


# --- corretor: memória dos pesos -------------------------------------------------------------------


ERROS_PESOS = {
    "sem o quadrado": (lambda n, h, b: n * h * b, "Faltou o quadrado"),
    "contou números": (lambda n, h, b: n * n * h, "contou **números**"),
    "bytes por número fixos em 4": (lambda n, h, b: n * n * h * 4, "bytes_per_value recebido"),
    "sem as cabeças": (lambda n, h, b: n * n * b, "Faltaram as cabeças"),
    "bits em vez de bytes": (lambda n, h, b: n * n * h * b * 8, "**bits**"),
    "só a metade causal": (lambda n, h, b: n * (n + 1) // 2 * h * b, "metade causal"),
    "em MiB": (lambda n, h, b: n * n * h * b / 2**20, "MiB"),
    "em GiB": (lambda n, h, b: n * n * h * b / 2**30, "GiB"),
    "em MB": (lambda n, h, b: n * n * h * b / 1e6, "MB"),
}


@pytest.mark.parametrize("nome", list(ERROS_PESOS))
def test_check_memoria_names_each_mistake(nome):
    confere_erro_nomeado(licao.MEMORIA_PESOS, ERROS_PESOS, nome)


@pytest.mark.parametrize(
    ("fn", "trecho"),
    [
        (ERROS_PESOS["sem o quadrado"][0], "Faltou o quadrado"),
        (lambda n, h, b: 7, "esperava 4 194 304 bytes, veio 7 bytes"),
        (lambda n, h, b: "muito", "deve ser um número (de bytes)"),
    ],
)
def test_check_memoria_prints_the_verdict(fn, trecho, capsys):
    assert licao.check_memoria_pesos(fn) is False
    assert trecho in capsys.readouterr().out


def memoria_float(n, n_heads=1, bytes_per_value=4):
    return float(n) ** 2 * n_heads * bytes_per_value


def memoria_numpy(n, n_heads=1, bytes_per_value=4):
    return np.int64(n) * n * n_heads * bytes_per_value


def memoria_laco(n, n_heads=1, bytes_per_value=4):
    total = 0
    for _cabeca in range(n_heads):
        total += n * n * bytes_per_value  # uma matriz n × n por cabeça
    return total


@pytest.mark.parametrize("fn", [lambda n, n_heads=1, bytes_per_value=4: n * n * n_heads * bytes_per_value,
                                memoria_float, memoria_numpy, memoria_laco])
def test_check_memoria_accepts_right_answers_written_differently(fn, capsys):
    assert licao.check_memoria_pesos(fn) is True
    assert "64,0 GiB" in capsys.readouterr().out


def test_check_memoria_stub(capsys):
    def memoria_pesos(n, n_heads=1, bytes_per_value=4):
        raise NotImplementedError("complete aqui")

    assert licao.check_memoria_pesos(memoria_pesos) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


# --- o notebook: soluções publicadas e esqueletos ----------------------------------------------------


def _celulas():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)




def test_stubs_in_the_notebook_get_the_friendly_message(capsys):
    codigo = ["".join(c["source"]) for c in _celulas() if c["cell_type"] == "code"]
    esqueletos = [c for c in codigo if "NotImplementedError" in c]
    assert len(esqueletos) == 3
    checagens = (licao.check_combinar_estados, licao.check_atencao_por_blocos, licao.check_memoria_pesos)
    for fonte, checar in zip(esqueletos, checagens, strict=True):
        ns = {"np": np}
        exec(fonte, ns)
        fn = next(v for k, v in ns.items() if callable(v) and k in ("combinar", "memoria_pesos", "atualizar"))
        if fn.__name__ == "memoria_pesos":  # os nomes do núcleo: n_heads e bytes_per_value
            assert list(inspect.signature(fn).parameters) == ["n", "n_heads", "bytes_per_value"]
        assert checar(fn) is False
        assert "ainda não foi implementada" in capsys.readouterr().out


def test_redrawing_only_what_changes_gives_the_same_picture():
    """O painel redesenha só os artistas animados; a imagem deve ser a do desenho completo (os animados por cima)."""
    import io

    from PIL import Image

    from helpers import plots
    from helpers.licoes import custo as licao

    p = licao.painel_custo()
    p.definir(n=4096, metodo="blocos", causal=True, bloco=256)  # o retângulo do bloco aparece
    blits = p.blits
    p.definir(n=2048, bloco=128)
    assert p.blits == blits + 1  # a conferência vale para um blit
    rapido = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("RGB"))
    p.canvas.draw()  # do zero: o desenho completo (que pula os animados) e os animados por cima
    for artista in p.animados:
        if artista.get_visible():
            p.fig.draw_artist(artista)
    completo = np.asarray(Image.open(io.BytesIO(plots.png_do_canvas(p.canvas))).convert("RGB"))
    assert (rapido == completo).all()  # pixel a pixel: a grade dos blocos por cima do padrão, como no completo


# --- medir num núcleo só ------------------------------------------------------------------------------


def test_um_nucleo_desliga_as_threads_da_colecao_e_do_blas():
    from threadpoolctl import threadpool_info

    from helpers import _fast, efficient

    antes = (_fast.cores(), efficient.cores())
    with licao.um_nucleo():
        assert _fast.cores() == 1 and efficient.cores() == 1
        assert all(p["num_threads"] == 1 for p in threadpool_info() if p["user_api"] == "blas")
    assert (_fast.cores(), efficient.cores()) == antes


def test_um_nucleo_nao_muda_os_resultados():
    from helpers import attention, efficient

    rng = np.random.default_rng(0)
    q, k, v = (rng.normal(size=(1100, 8)) for _ in range(3))   # 1100² > 2²⁰: a softmax em paralelo entraria
    livre = attention.scaled_dot_product_attention(q, k, v)[0], efficient.blockwise_attention(q, k, v)
    with licao.um_nucleo():
        preso = attention.scaled_dot_product_attention(q, k, v)[0], efficient.blockwise_attention(q, k, v)
    assert all(np.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(livre, preso))


def test_cronometrar_e_tempo_rnn_devolvem_segundos():
    assert 0 <= licao.cronometrar(sum, [1, 2, 3]) < 1
    assert 0 < licao.tempo_rnn(16, d=4) < 1


# --- a atenção por blocos: o estudante escreve o passo, o corretor faz o laço ------------------------------


def _combinar(a, b):
    m = max(a[0], b[0])
    fa, fb = np.exp(a[0] - m), np.exp(b[0] - m)
    return m, a[1] * fa + b[1] * fb, a[2] * fa + b[2] * fb


def _atualizar(*, escala=lambda q, K: np.sqrt(q.shape[-1]), maximo=lambda z: z.max(), juntar=_combinar,
               dividir_bloco=False, dividir_estado=False):
    """Um passo escrito como o estudante escreveria, com um erro ligado por argumento."""
    def atualizar(estado, q, K_bloco, V_bloco):
        z = K_bloco @ q / escala(q, K_bloco)
        m = maximo(z)
        e = np.exp(z - m)
        acc = e @ V_bloco / (e.sum() if dividir_bloco else 1.0)
        novo = juntar(estado, (m, e.sum(), acc))
        return (novo[0], novo[1], novo[2] / novo[1]) if dividir_estado else novo
    return atualizar


def _so_o_bloco(estado, bloco):
    return bloco


def _antigo_sem_reescalar(a, b):
    m = max(a[0], b[0])
    fb = np.exp(b[0] - m)
    return m, a[1] + b[1] * fb, a[2] + b[2] * fb


def _novo_sem_reescalar(a, b):
    m = max(a[0], b[0])
    fa = np.exp(a[0] - m)
    return m, a[1] * fa + b[1], a[2] * fa + b[2]


def _sem_reescalar(a, b):
    return max(a[0], b[0]), a[1] + b[1], a[2] + b[2]


def _devolve_a_saida(estado, q, K_bloco, V_bloco):
    novo = _atualizar()(estado, q, K_bloco, V_bloco)
    return novo[2] / novo[1]


def _sem_somar(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return _combinar(estado, (z.max(), e, e[:, None] * V_bloco))  # uma entrada por key


def combinar(a, b):
    """O esqueleto do Exercício 1, como no notebook antes de ser feito."""
    raise NotImplementedError("complete aqui")


def _com_a_combinar_do_notebook(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return combinar(estado, (z.max(), e.sum(), e @ V_bloco))


_VISTOS = []


def _estado_so_certo_no_fim(estado, q, K_bloco, V_bloco):
    """Guarda os blocos fora da função e devolve um estado "normalizado" (m = 0, l = 1, acc = a saída até aqui):
    acerta a saída do laço, mas não é o estado."""
    if estado[1] == 0:
        _VISTOS.clear()
    _VISTOS.append((K_bloco, V_bloco))
    K, V = np.concatenate([k for k, _ in _VISTOS]), np.concatenate([v for _, v in _VISTOS])
    z = K @ q / np.sqrt(q.shape[-1])
    e = np.exp(z - z.max())
    return 0.0, 1.0, e @ V / e.sum()


def _le_l_como_m(estado, q, K_bloco, V_bloco):
    l_velho, m_velho, acc_velho = estado
    return _atualizar()((m_velho, l_velho, acc_velho), q, K_bloco, V_bloco)


def _estado_como_m(estado, q, K_bloco, V_bloco):
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    m = max(estado, z.max())
    e = np.exp(z - m)
    return m, e.sum(), e @ V_bloco


EXEMPLOS_BLOCOS = {
    "devolveu a saída, não o estado": (_devolve_a_saida, "o laço precisa do **estado**"),
    "sem somar as keys do bloco": (_sem_somar, "faltou **somar**"),
    "a combinar ainda não foi feita": (_com_a_combinar_do_notebook, "Faça o Exercício 1 primeiro"),
    "sem a escala √d": _atualizar(escala=lambda q, K: 1.0),
    "escala 1/d em vez de 1/√d": _atualizar(escala=lambda q, K: q.shape[-1]),
    "escala pelo tamanho do bloco": (_atualizar(escala=lambda q, K: np.sqrt(len(K))), "len(K_bloco)"),
    "só o último bloco": _atualizar(juntar=_so_o_bloco),
    "estado antigo sem reescalar": (_atualizar(juntar=_antigo_sem_reescalar), "check_combinar_estados"),
    "bloco novo sem reescalar": _atualizar(juntar=_novo_sem_reescalar),
    "nenhum estado reescalado": _atualizar(juntar=_sem_reescalar),
    "acc do bloco dividido por l": _atualizar(dividir_bloco=True),
    "dividiu por l cedo demais": _atualizar(dividir_estado=True),
    "máximo do bloco só quando positivo (instável)": _atualizar(maximo=lambda z: max(z.max(), 0.0)),
    "mínimo do bloco no lugar do máximo (instável)": _atualizar(maximo=lambda z: z.min()),
    "bloco sem subtrair o máximo (instável)": _atualizar(maximo=lambda z: 0.0),
    "o estado não é o da softmax online": (_estado_so_certo_no_fim, "depois de **cada** bloco"),
    "l e acc trocados no estado": (lambda *a: (lambda m, l_, acc: (m, acc, l_))(*_atualizar()(*a)), "(m, acc, l)"),
    "desempacotou o estado na ordem errada": (_le_l_como_m, "l, m, acc = estado"),
    "o estado inteiro no lugar de m": (_estado_como_m, "m = estado[0]"),
}


def test_um_cache_fora_da_funcao_que_devolve_o_estado_verdadeiro_nao_passa():
    """Guardar os blocos numa lista global e devolver o estado de tudo o que está nela acerta a saída de cada
    caso; as duas passadas intercaladas (e o estado inicial com keys de fora) o pegam."""
    guardados = []

    def com_cache(estado, q, K_bloco, V_bloco):
        if estado[1] == 0:
            guardados.clear()
        guardados.append((K_bloco, V_bloco))
        K, V = np.concatenate([k for k, _ in guardados]), np.concatenate([v for _, v in guardados])
        z = K @ q / np.sqrt(q.shape[-1])
        e = np.exp(z - z.max())
        return z.max(), e.sum(), e @ V

    v = corrigir(licao.POR_BLOCOS, _laco(com_cache))
    assert v.erro == "o estado não é o da softmax online", v.mensagem


@pytest.mark.parametrize("nome", list(EXEMPLOS_BLOCOS))
def test_por_blocos_da_nome_a_cada_erro(nome):
    exemplos = {n: (_laco(e[0]), e[1]) if isinstance(e, tuple) else _laco(e) for n, e in EXEMPLOS_BLOCOS.items()}
    confere_erro_nomeado(licao.POR_BLOCOS, exemplos, nome)


def _laco(fn):
    from helpers.licoes.custo.blocos import _laco as laco

    return laco(fn)


def _a_mao_em_float32(estado, q, K_bloco, V_bloco):
    """Sem a combinar: a correção escrita à mão, em float32, com o estado em lista."""
    m_velho, l_velho, acc_velho = estado
    z = (K_bloco @ q) / np.float32(np.sqrt(len(q)))
    m = np.maximum(m_velho, z.max())
    fator = np.exp(m_velho - m)
    e = np.exp(z - m)
    return [m, l_velho * fator + e.sum(), acc_velho * fator + e @ V_bloco]


def _com_a_biblioteca(estado, q, K_bloco, V_bloco):
    from helpers import efficient

    return efficient.combine_states(estado, efficient.partial_state(K_bloco @ q / np.sqrt(len(q)), V_bloco))


def _bloco_primeiro(estado, q, K_bloco, V_bloco):
    """A combinar com os estados na outra ordem (ela é comutativa) e o estado vazio tratado à parte."""
    z = K_bloco @ q / np.sqrt(q.shape[-1])
    m = np.max(z)
    e = np.exp(z - m)
    bloco = (m, np.sum(e), V_bloco.T @ e)
    if estado[0] == -np.inf:
        return bloco
    return _combinar(bloco, estado)


@pytest.mark.parametrize("fn", [_atualizar(), _a_mao_em_float32, _com_a_biblioteca, _bloco_primeiro])
def test_por_blocos_aceita_respostas_certas(fn, capsys):
    assert licao.check_atencao_por_blocos(fn) is True
    assert "só recebeu um bloco de keys por vez" in capsys.readouterr().out


def test_por_blocos_o_laco_e_do_corretor():
    """A função do estudante só recebe um bloco por vez, do tamanho pedido (o último pode ser menor), e o estado
    que ela mesma devolveu no bloco anterior."""
    vistos = []

    def espia(estado, q, K_bloco, V_bloco):
        vistos.append((K_bloco.shape[0], V_bloco.shape[0], estado[0]))
        return _atualizar()(estado, q, K_bloco, V_bloco)

    caso = licao.POR_BLOCOS.casos()[0]  # 7 keys em blocos de 3
    from helpers.licoes.custo.blocos import percorrer_em_blocos

    saida = percorrer_em_blocos(espia, **caso.entradas)
    assert [(b, bv) for b, bv, _ in vistos] == [(3, 3), (3, 3), (1, 1)]
    assert vistos[0][2] == -np.inf and np.isfinite(vistos[1][2])
    np.testing.assert_allclose(saida, licao.POR_BLOCOS.certo(**caso.entradas), rtol=1e-12)


def test_por_blocos_pendente_forma_e_entrada_mudada():
    from helpers.corretor import corrigir

    def atualizar(estado, q, K_bloco, V_bloco):
        raise NotImplementedError("complete aqui")

    assert corrigir(licao.POR_BLOCOS, _laco(atualizar)).erro == "pendente"
    sem_return = corrigir(licao.POR_BLOCOS, _laco(lambda estado, q, K_bloco, V_bloco: None))
    assert sem_return.erro == "pendente" and "return" in sem_return.mensagem

    def q_na_frente(estado, q, K_bloco, V_bloco):
        z = q @ K_bloco / np.sqrt(q.shape[-1])  # (d,) @ (b, d): só fecha quando b = d
        e = np.exp(z - z.max())
        return _combinar(estado, (z.max(), e.sum(), e @ V_bloco))

    v = corrigir(licao.POR_BLOCOS, _laco(q_na_frente))
    assert v.erro == "forma" and "K_bloco @ q" in v.mensagem, v.mensagem

    def escala_no_lugar(estado, q, K_bloco, V_bloco):
        q /= np.sqrt(q.shape[-1])  # muda o q de quem chamou: no bloco seguinte, escala de novo
        z = K_bloco @ q
        e = np.exp(z - z.max())
        return _combinar(estado, (z.max(), e.sum(), e @ V_bloco))

    assert corrigir(licao.POR_BLOCOS, _laco(escala_no_lugar)).erro == "mudou a entrada"
    v = corrigir(licao.POR_BLOCOS, _laco(lambda estado, q, K_bloco, V_bloco: (1.0, 2.0)))
    assert v.erro == "tipo" and "tripla (m, l, acc)" in v.mensagem, v.mensagem


# --- prever o estado da atenção linear ------------------------------------------------------------------


@pytest.mark.parametrize(("digitado", "erro"), [
    ("4160", None), ("4 160", None), ("4.160", None), ("4160,0", None), (" 4160 ", None), ("4160 números", None),
    ("64*64 + 64", None), ("64 × 64 + 64", None), ("64² + 64", None), ("64·64+64", None), ("64^2 + 64", None),
    ("12 800 000", "pensou no KV cache"), ("12.800.000", "pensou no KV cache"), ("2 * 100000 * 64", "pensou no KV cache"),
    ("6 400 000", "um vetor por token"), ("6400000", "um vetor por token"),
    ("4096", "esqueceu o normalizador"), ("64 × 64", "esqueceu o normalizador"), ("4 096", "esqueceu o normalizador"),
    ("64", "um vetor só"),
    ("1000", "valor"), ("8192", "valor"),
])
def test_caixa_do_estado_linear_as_a_student_types(digitado, erro):
    c = licao.prever_estado_linear()
    assert c.conferir(digitado) is (erro is None) and c.conferida, c.mensagem.value
    assert c.veredito.erro == erro
    assert c.entrada.disabled and "4 160" in c.mensagem.value  # a revelação traz a resposta e a fórmula
    assert "d·d_v + d" in c.mensagem.value


@pytest.mark.parametrize("digitado", ["quatro mil", "4l60", "4,16", "4,160", "64 ** 64 ** 64", "sqrt(64)", "1e3"])
def test_caixa_do_estado_linear_ignores_a_typo(digitado):
    """Um erro de digitação (ou uma contagem com vírgula decimal) não custa a previsão."""
    c = licao.prever_estado_linear()
    assert c.conferir(digitado) is False and not c.conferida, c.mensagem.value
    assert "A resposta:" not in c.mensagem.value and "4 160" not in c.mensagem.value
    assert not c.entrada.disabled
    assert c.conferir("") is False and not c.conferida
    assert c.conferir("4160") is True


def test_previsao_estado_linear_names_each_mistake_and_waits_for_a_guess():
    from helpers.corretor import corrigir_previsao

    prev = licao.PREVISAO_ESTADO_LINEAR
    for certa in (4160, 4160.0, np.int64(4160), "4160"):
        assert corrigir_previsao(prev, certa).ok
    v = corrigir_previsao(prev, None)
    assert v.erro == "pendente" and "4 160" not in v.mensagem
    for erro in prev.erros:
        v = corrigir_previsao(prev, erro.resposta())
        assert not v.ok and v.erro == erro.nome, v.mensagem


def test_previsao_estado_linear_example_is_legible_and_the_clues_name_the_answer():
    from helpers.corretor import corrigir_previsao
    from helpers.previsao import ler_digitado

    prev = licao.PREVISAO_ESTADO_LINEAR
    assert corrigir_previsao(prev, ler_digitado(prev.exemplo)).erro == "valor"
    pistas = prev.pistas_da_resposta()
    assert {"4160", "4 160", "d·d_v + d", "64 × 64 + 64"} <= set(pistas)
    assert "64" not in pistas and "d × d" not in pistas  # sozinhos, são o d e a forma de φ(K)ᵀV da seção 4


def test_contagem_reads_counts_as_typed():
    assert licao.Contagem().normalizar("1.048.576") == 1048576
    assert licao.Contagem().normalizar("(64 + 1) · 64") == 4160
    assert licao.Contagem().mostrar(12_800_000) == "12 800 000"


def test_marcas_em_ms_e_bytes_na_prosa():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.loglog([1, 2], [0.18, 45.0], base=2)
    licao.marcas_em_ms(ax, [0.18, 45.0])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0,25", "1", "4", "16"]
    plt.close(fig)
    assert licao.bytes_na_prosa(33 * 2**20) == "33,0 MiB" and licao.bytes_na_prosa(4 * 2**20) == "4,00 MiB"
