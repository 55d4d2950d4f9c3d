"""Fumaça do benchmark da turma (``python -m benchmarks --turma``): estrutura, contas e o README.

Sem asserções de tempo: o benchmark relata, não reprova. O teste que sobe kernels de verdade
(``--turma --rapido``) é marcado ``slow``.
"""


import ipywidgets as W
import pytest

import benchmarks
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
    assert len(r["latencias_ms"]) == p.atualizacoes > 0
    assert all(x >= 0 for x in r["latencias_ms"])
    vazio = turma.sessao({"x": 1}, 0.0, 0.1, 5)
    assert vazio["erros"] and not vazio["latencias_ms"]


def _rodada(n, p95, erros=()):
    return turma.Rodada(n=n, run_all_s=[1.0 * n], latencias_ms=[p95 / 2] * 19 + [p95] * 2, pss_mb=[100.0],
                        cpu_ocupada=0.5, cpu_kernels=0.4, carga="1.0 / 1.0", erros=list(erros))


def test_capacidade_medida_interpola_entre_os_n_medidos():
    # p95 40 ms com 1, 60 com 5, 140 com 10: passa de 100 ms entre 5 e 10, a meio caminho
    assert turma.capacidade_medida([_rodada(1, 40), _rodada(5, 60), _rodada(10, 140), _rodada(20, 400)]) == (
        pytest.approx(7.5), False)
    assert turma.capacidade_medida([_rodada(1, 10), _rodada(40, 90)]) == (40.0, True)  # todos cumprem: "pelo menos"
    assert turma.capacidade_medida([_rodada(1, 150)]) == (0.0, False)  # nem um estudante sozinho


def test_tabela_das_rodadas_com_razoes_sobre_n_1():
    texto = turma.tabela_rodadas([_rodada(1, 40), _rodada(10, 140, erros=["sliders: kernel morreu"])])
    linhas = texto.splitlines()
    assert len(linhas) == 4 and "p95 (÷ N=1)" in linhas[0]
    assert "| 40 ms (1.0×)" in linhas[2] and "✅" in linhas[2]
    assert "| 140 ms (3.5×)" in linhas[3] and "10.0 s (10.0×)" in linhas[3]
    assert "❌ (1 erros: sliders: kernel morreu)" in linhas[3]


def test_relatorio_da_turma_preenche_o_modelo_inteiro():
    texto = benchmarks.relatorio(
        "turma", maquina="máquina: teste", carga_inicio="1 / 1", carga_fim="2 / 2", notebook=turma.NOTEBOOK,
        minutos="3.0", tabela="| t |", cabem_cpu="cerca de 7", nucleos=2, memoria="24", por_estudante="210",
        servidor="90", cabem_memoria="107", reserva="2", rajada=8, intervalo="150", pausa="1 a 3")
    assert "Nesta máquina (2 núcleos, 24 GB), cerca de 7 estudantes" in texto and "caberiam 107" in texto
    assert "$" not in texto and "| t |" in texto


@pytest.mark.slow
def test_turma_rapida_roda_de_ponta_a_ponta():
    """``--turma --rapido`` com kernels de verdade (N = 1 e 2, poucos segundos de sliders)."""
    rodadas = turma.medir_turma((1, 2), duracao_s=2.0)
    assert [r.n for r in rodadas] == [1, 2]
    for r in rodadas:
        assert not r.erros, r.erros
        assert len(r.run_all_s) == len(r.pss_mb) == r.n and r.latencias_ms and 0 < r.cpu_kernels <= 1
    servidor = turma.memoria_do_servidor()
    assert 20 < servidor["pss"] < 2000  # um servidor JupyterLab ocupa dezenas a centenas de MiB
