"""Fumaça do benchmark da turma (``python -m benchmarks --turma``): estrutura, contas e o README.

Sem asserções de tempo: o benchmark relata, não reprova. O teste que sobe kernels de verdade
(``--turma --rapido``) é marcado ``slow``.
"""

import re

import ipywidgets as W
import pytest

from benchmarks import __main__ as cli
from benchmarks import turma


class PainelDeMentira:
    """Um painel por duck typing: ``controles`` (widgets) e ``atualizar()``; conta as atualizações."""

    def __init__(self):
        self.controles = {"x": W.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.1), "ligado": W.Checkbox(value=False)}
        self.atualizacoes = 0
        for c in self.controles.values():
            c.observe(lambda _m: self.atualizar(), names="value")

    def atualizar(self):
        self.atualizacoes += 1


class SemAtualizar:
    controles = {"x": W.FloatSlider()}


def test_paineis_achados_por_duck_typing():
    p, q = PainelDeMentira(), PainelDeMentira()
    espaco = {"p": p, "mesmo": p, "_escondido": PainelDeMentira(), "classe": PainelDeMentira, "outro": SemAtualizar(),
              "texto": "controles", "Out": {3: q}}
    achados = turma.paineis_no_espaco(espaco)
    assert [n for n, _ in achados] == ["p", "Out[3]"]
    assert achados[0][1] is p and achados[1][1] is q


def test_plano_de_teclas_em_rajadas_com_pausas():
    plano = turma._plano(semente=1, duracao_s=20.0)
    assert plano and all(0 <= t < 20.0 for t, _ in plano)
    assert [t for t, _ in plano] == sorted(t for t, _ in plano)
    rajadas = {}
    for t, r in plano:
        rajadas.setdefault(r, []).append(t)
    cheias = [ts for ts in rajadas.values() if len(ts) == turma.RAJADA]
    assert cheias
    for ts in cheias:
        assert [round(b - a, 6) for a, b in zip(ts, ts[1:])] == [turma.INTERVALO_S] * (turma.RAJADA - 1)
    inicios = sorted(ts[0] for ts in rajadas.values())
    assert all(b - a >= turma.RAJADA * turma.INTERVALO_S + turma.PAUSA_S[0] - 1e-9 for a, b in zip(inicios, inicios[1:]))


def test_sessao_mede_cada_tecla_no_painel():
    p = PainelDeMentira()
    r = turma.sessao({"painel": p}, inicio_epoch=0.0, duracao_s=4.0, semente=5)
    assert r["paineis"] == ["painel"] and not r["erros"]
    assert len(r["latencias_ms"]) == len(r["cpu_ms"]) == p.atualizacoes > 0
    assert all(x >= 0 for x in r["latencias_ms"])
    vazio = turma.sessao({"x": 1}, 0.0, 0.1, 5)
    assert vazio["erros"] and not vazio["latencias_ms"]


def _rodada(n, p95, pss=100.0):
    return turma.Rodada(n=n, subir_s=1.0, run_all_s=[1.0 * n], latencias_ms=[p95 / 2] * 19 + [p95] * 2,
                        cpu_ms=[30.0], rss_mb=[pss + 10], pss_mb=[pss], cpu_ocupada=0.5, cpu_kernels=0.4,
                        carga="1.0 / 1.0", erros=[])


def test_simulacao_de_uma_fila_por_kernel_dividindo_os_nucleos():
    # um estudante sozinho: cada tecla custa 50 ms e chega 150 ms depois da anterior, sem fila
    assert turma.mediana_p95(turma.simular_latencias([50.0], 1, 2, duracao_s=10)) == pytest.approx((50.0, 50.0))
    # dois núcleos, dois estudantes: cada um tem um núcleo
    assert max(turma.simular_latencias([50.0], 2, 2, duracao_s=10)) == pytest.approx(50.0)
    # um núcleo para quatro estudantes apertando ao mesmo tempo: as atualizações esperam
    assert max(turma.simular_latencias([50.0], 4, 1, duracao_s=10)) > 50.0
    # mais núcleos, mais estudantes
    c2, c4 = turma.capacidade_simulada([50.0], 2, 10), turma.capacidade_simulada([50.0], 4, 10)
    assert 1 <= c2 < c4
    assert turma.capacidade_simulada([500.0], 2, 10) == 0


def test_dimensionamento_interpola_e_marca_a_extrapolacao():
    rodadas = [_rodada(1, 40), _rodada(5, 60), _rodada(10, 140), _rodada(20, 400)]
    n, passou = turma.capacidade_cpu(rodadas)
    assert n == pytest.approx(7.5) and not passou
    caps = turma.capacidades(rodadas, servidor_mib=80.0, nucleos=2, memoria_gib=24.0, duracao_s=10)
    assert [c.nucleos for c in caps] == [2, 4, 8, 16]
    assert caps[0].medido == pytest.approx(7.5) and all(c.medido is None for c in caps[1:])
    assert caps[0].memoria == (24 - turma.RESERVA_GIB) * 1024 // 180
    tabela, notas = turma.dimensionamento(caps)
    linhas = tabela.splitlines()
    assert "cerca de 7" in linhas[2] and "medido nesta máquina" in linhas[2]
    assert all("extrapolado" in linha for linha in linhas[3:])
    assert any("extrapolação" in nota for nota in notas)
    frase = turma.frase_resumo(caps)
    assert "Num servidor de 2 núcleos e 24 GB" in frase and "A memória não é o limite" in frase
    assert "com 4 núcleos, ≈" in frase and "extrapolado por simulação" in frase
    assert "repita a medição" in turma.frase_resumo([])
    # todos cumprem: "pelo menos" o maior N medido
    assert turma.capacidade_cpu([_rodada(1, 10), _rodada(40, 90)]) == (40.0, True)
    texto = turma.tabela_rodadas(rodadas)
    assert texto.count("\n") == len(rodadas) + 1 and "❌" in texto and "✅" in texto


def test_readme_so_o_trecho_da_turma_muda(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"a\n{turma.INICIO}\nvelho\n{turma.FIM}\n{cli.INICIO}\nfica\n{cli.FIM}\n", encoding="utf-8")
    cli.gravar_readme(turma.secao_readme("| novo |"), readme, inicio=turma.INICIO, fim=turma.FIM)
    texto = readme.read_text(encoding="utf-8")
    assert "velho" not in texto and "| novo |" in texto and "fica" in texto
    assert "python -m benchmarks --turma --readme" in texto


def test_cli_turma_recusa_readme_rapido():
    with pytest.raises(SystemExit):
        cli.main(["--turma", "--rapido", "--readme"])


@pytest.mark.slow
def test_turma_rapida_roda_de_ponta_a_ponta():
    """``--turma --rapido`` com kernels de verdade (N = 1 e 2, poucos segundos de sliders)."""
    primeiros = sorted(turma.PASTA.glob("[0-9][0-9]_*.ipynb"))[:1]
    rodadas = turma.medir_turma((1, 2), duracao_s=2.0, colecao=primeiros)
    assert [r.n for r in rodadas] == [1, 2]
    for r in rodadas:
        assert not r.erros, r.erros
        assert len(r.run_all_s) == len(r.colecao_s) == r.n and r.latencias_ms and len(r.pss_mb) == r.n
    passos = turma.memoria_de_um_kernel()
    assert [p for p, _ in passos][0].startswith("kernel ocioso") and passos[-1][0] == "figuras"
    assert dict(passos)["figuras"]["n"] == 2
    texto = turma.relatorio(rodadas, {"rss": 90.0, "pss": 80.0}, passos, turma.NOTEBOOK, "máquina: teste", "1 / 1", 1.0)
    assert re.search(r"^\| 1 +\| \d+ ms", texto, re.M) and re.search(r"^\| 2 +\| \d+ ms", texto, re.M)
    assert "Quantos estudantes cabem" in texto and "Para onde vai a memória" in texto
