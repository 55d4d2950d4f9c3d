"""Notebook 09: o painel de custo, os corretores da softmax online e da memória dos pesos, as soluções.

As contas do painel são comparadas com contagens independentes, feitas aqui por força bruta sobre
as máscaras (``band_mask``, máscara causal, blocos) e com as fórmulas fechadas do notebook.
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from helpers import checks, widgets
from helpers.efficient import attention_costs, band_count, band_mask, causal_tile_count, combine_states
from tests._notebooks import solucoes_do_notebook

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "09_custo_quadratico.ipynb"


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
        np.testing.assert_allclose(widgets.padrao_custo(n, metodo, w, b, causal), esperado, atol=1e-12)


def test_padrao_custo_fraction_matches_the_counts():
    # a média da imagem (nível 1 = calculado e usado) bate com a contagem exata da faixa
    for n, w in ((131072, 4096), (4096, 16)):
        img = widgets.padrao_custo(n, "local", w, 128, False)
        assert math.isclose(img.mean(), band_count(n, w) / n**2, rel_tol=1e-9)
    img = widgets.padrao_custo(65536, "blocos", 16, 64, True)  # células (512) maiores que os blocos (64)
    calculados = causal_tile_count(65536, 64)
    usados = 65536 * 65537 // 2
    assert math.isclose(img.mean(), (usados + 0.5 * (calculados - usados)) / 65536**2, rel_tol=1e-9)


# --- o painel --------------------------------------------------------------------------------------


def _numeros_da_tabela(html):
    return [int(x.replace(" ", "")) for x in re.findall(r"<td[^>]*>(\d[\d ]*) \(", html)]


def test_painel_default_state():
    p = widgets.painel_custo()
    e = p.estado
    assert (e["n"], e["janela"], e["bloco"], e["metodo"], e["causal"], e["d"]) == (1024, 16, 128, "local", False, 64)
    assert e["custos"] == attention_costs(1024, 64, window=16, block_size=128)
    assert math.isclose(e["fracao_local"], (1024 * 33 - 16 * 17) / 1024**2)
    assert e["padrao"].shape == (128, 128)
    assert _numeros_da_tabela(p.texto.value) == [1024**2, 1024 * 33 - 16 * 17, 0, 1024**2]
    assert "4 MiB" in p.texto.value  # a exata com 1k tokens


@pytest.mark.parametrize(
    ("controle", "valor"),
    [("n", 2048), ("janela", 17), ("bloco", 256), ("metodo", "linear"), ("causal", True)],
)
def test_every_control_changes_numbers_or_png_with_one_step(controle, valor):
    p = widgets.painel_custo()
    png, texto, custos = p.imagem.value, p.texto.value, p.estado["custos"]
    p.controles[controle].value = valor
    e = p.estado
    assert p.imagem.value != png
    esperado = attention_costs(e["n"], 64, window=e["janela"], block_size=e["bloco"], causal=e["causal"])
    assert e["custos"] == esperado
    if controle != "metodo":  # o método só muda a figura; os outros mudam também os números
        assert e["custos"] != custos and p.texto.value != texto


def test_painel_big_n_causal_blocks():
    p = widgets.painel_custo()
    p.definir(n=131072, metodo="blocos", causal=True, bloco=512)
    e = p.estado
    assert e["custos"]["exata"]["bytes"] == 64 * 2**30 and "64 GiB" in p.texto.value
    assert e["custos"]["blocos"]["escores"] == causal_tile_count(131072, 512)
    assert 0.5 < e["fracao_blocos"] < 0.51
    # a imagem: o futuro fora dos blocos da diagonal não é calculado (0), o passado é (1)
    assert e["padrao"][0, -1] == 0 and e["padrao"][-1, 0] == 1


def test_painel_block_larger_than_n_and_window_larger_than_n():
    p = widgets.painel_custo()
    p.definir(n=16, bloco=512, janela=512, metodo="blocos")
    e = p.estado
    assert e["custos"]["blocos"]["numeros"] == 16 * 16 + 2 * 16  # o bloco não passa de n
    assert e["custos"]["local"]["escores"] == 16 * 16  # a janela cobre tudo
    assert np.all(e["padrao"] == 1)


def test_painel_rejects_bad_arguments_in_portuguese():
    with pytest.raises(ValueError, match="potência|uma de"):
        widgets.painel_custo(n=1000)
    with pytest.raises(ValueError, match="método"):
        widgets.painel_custo(metodo="esparsa")


def test_painel_is_fast_enough():
    p = widgets.painel_custo()
    tempos = []
    for n in (2048, 4096, 8192, 1024):
        p.controles["n"].value = n
        tempos.append(p.ultimo_tempo_ms)
    assert np.median(tempos) < 200  # a meta (≤ 50 ms) é medida pelo benchmark; aqui só uma folga larga


# --- corretor: combinar dois estados ---------------------------------------------------------------


def combinar_certo(a, b):
    m_a, l_a, acc_a = a
    m_b, l_b, acc_b = b
    m = max(m_a, m_b)
    fa, fb = np.exp(m_a - m), np.exp(m_b - m)
    return m, l_a * fa + l_b * fb, acc_a * fa + acc_b * fb


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


@pytest.mark.parametrize(
    ("fn", "trecho"),
    [
        (_com_fatores(UM, UM), "sem reescalar nenhum"),
        (_com_fatores(UM, CERTO), "reescalar o estado **antigo**"),
        (_com_fatores(CERTO, UM), "reescalar o estado **novo**"),
        (_com_fatores(CERTO, CERTO, acc_ok=False), "acumulador acc não foi reescalado"),
        (_com_fatores(CERTO, CERTO, l_ok=False), "soma l não foi reescalada"),
        (_com_fatores(INVERTIDO, INVERTIDO), "Sinal trocado"),
        (_com_fatores(CERTO, CERTO, dividir=True), "cedo demais"),
    ],
)
def test_check_combinar_names_the_mistake(fn, trecho, capsys):
    assert checks.check_combinar_estados(fn) is False
    saida = capsys.readouterr().out
    assert "❌" in saida and trecho in saida, saida


def test_check_combinar_accepts_correct_and_helper(capsys):
    assert checks.check_combinar_estados(combinar_certo) is True
    assert "✅" in capsys.readouterr().out
    assert checks.check_combinar_estados(combine_states) is True  # a versão de helpers.efficient


def test_check_combinar_other_mistakes(capsys):
    def maximo_errado(a, b):
        m, l_, acc = combinar_certo(a, b)
        return min(a[0], b[0]), l_, acc

    def divide_cada_um(a, b):
        m, l_, _ = combinar_certo(a, b)
        fa, fb = math.exp(a[0] - m), math.exp(b[0] - m)
        return m, l_, a[2] / a[1] * fa + b[2] / b[1] * fb

    def sem_tripla(a, b):
        return 1.0

    def stub(a, b):
        raise NotImplementedError("complete aqui")

    for fn, trecho in ((maximo_errado, "max(m_a, m_b)"), (divide_cada_um, "antes de combinar"),
                       (sem_tripla, "tripla"), (stub, "ainda não foi implementada")):
        assert checks.check_combinar_estados(fn) is False
        assert trecho in capsys.readouterr().out, fn.__name__


def test_check_combinar_nan_on_empty_state(capsys):
    def nan_no_vazio(a, b):
        m = max(a[0], b[0])
        fa, fb = math.exp(a[0] - m), math.exp(b[0] - m)
        # dividir pelo l antigo: 0 / 0 no estado vazio
        return m, l_a_div(a) * fa + b[1] * fb, a[2] * fa + b[2] * fb

    def l_a_div(a):
        with np.errstate(all="ignore"):
            return float(np.float64(a[1]) / np.float64(a[1]) * a[1])

    assert checks.check_combinar_estados(nan_no_vazio) is False
    assert "NaN ou inf" in capsys.readouterr().out


# --- corretor: memória dos pesos -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "trecho"),
    [
        (lambda n, h, b: n * h * b, "Faltou o quadrado"),
        (lambda n, h, b: n * n * h, "contou **números**"),
        (lambda n, h, b: n * n * b, "Faltaram as cabeças"),
        (lambda n, h, b: n * n * h * b * 8, "**bits**"),
        (lambda n, h, b: n * (n + 1) // 2 * h * b, "metade causal"),
        (lambda n, h, b: n * n * h * b / 2**20, "MiB"),
        (lambda n, h, b: n * n * h * b / 2**30, "GiB"),
        (lambda n, h, b: 7, "esperava n² · n_cabecas · bytes_por_numero = 4 194 304 bytes, veio 7"),
        (lambda n, h, b: "muito", "um número"),
    ],
)
def test_check_memoria_names_the_mistake(fn, trecho, capsys):
    assert checks.check_memoria_pesos(fn) is False
    assert trecho in capsys.readouterr().out


def test_check_memoria_accepts_correct_and_stub(capsys):
    assert checks.check_memoria_pesos(lambda n, n_cabecas=1, bytes_por_numero=4: n * n * n_cabecas * bytes_por_numero)
    assert "64 GiB" in capsys.readouterr().out

    def memoria_pesos(n, n_cabecas=1, bytes_por_numero=4):
        raise NotImplementedError("complete aqui")

    assert checks.check_memoria_pesos(memoria_pesos) is False
    assert "ainda não foi implementada" in capsys.readouterr().out


# --- o notebook: soluções publicadas e esqueletos ----------------------------------------------------


def _celulas():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _solucoes():
    return solucoes_do_notebook(NOTEBOOK)


def test_published_solutions_pass_the_checkers(capsys):
    blocos = _solucoes()
    assert len(blocos) == 2
    ns1 = {"np": np}
    exec(blocos[0], ns1)
    assert checks.check_combinar_estados(ns1["combinar"]) is True
    ns2 = {"np": np}
    exec(blocos[1], ns2)
    assert checks.check_memoria_pesos(ns2["memoria_pesos"]) is True
    assert ns2["memoria_pesos"](8192, 32, 2) == 4 * 2**30  # o comentário da solução: 4 GiB por camada


def test_stubs_in_the_notebook_get_the_friendly_message(capsys):
    codigo = ["".join(c["source"]) for c in _celulas() if c["cell_type"] == "code"]
    esqueletos = [c for c in codigo if "NotImplementedError" in c]
    assert len(esqueletos) == 2
    for fonte, checar in zip(esqueletos, (checks.check_combinar_estados, checks.check_memoria_pesos), strict=True):
        ns = {"np": np}
        exec(fonte, ns)
        fn = next(v for k, v in ns.items() if callable(v) and k in ("combinar", "memoria_pesos"))
        assert checar(fn) is False
        assert "ainda não foi implementada" in capsys.readouterr().out


def test_redrawing_only_what_changes_gives_the_same_picture():
    """O painel redesenha só os artistas que mudam; a imagem deve ser a do desenho completo."""
    import io

    from PIL import Image

    from helpers import plots

    p = widgets.painel_custo()
    p.definir(n=4096, metodo="blocos", causal=True, bloco=256)
    rapido = np.asarray(Image.open(io.BytesIO(p.imagem.value)).convert("RGB")).astype(int)
    for artista in p._dinamicos:
        artista.set_animated(False)
    completo = np.asarray(Image.open(io.BytesIO(plots.png(p.fig))).convert("RGB")).astype(int)
    diferentes = (np.abs(rapido - completo).sum(axis=-1) > 30).mean()
    assert diferentes < 0.001, diferentes  # só a ordem do retângulo laranja e da grade muda
