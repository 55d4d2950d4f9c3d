"""O guia do instrutor e os notebooks concordam: números, erros típicos dos corretores, e a prosa em pt-BR."""

import re
from pathlib import Path

import pytest

from tests._notebooks import decimais_com_ponto, numeros_do_guia_fora_do_notebook, secoes_do_guia
from tools import notebooks as tn

RAIZ = Path(__file__).resolve().parent.parent
GUIA = (RAIZ / "docs" / "guia_do_instrutor.md").read_text(encoding="utf-8")
SECOES = secoes_do_guia(GUIA)
ETAPAS = {e.arquivo[:2]: e for e in tn.TRILHA}
LINHA_DE_ERROS = re.compile(r"^- `((?:check|prever)_\w+)` \(\*(.+?)\*\): (.+)$", flags=re.M)
CORRETOR = re.compile(r"licao\.((?:check|prever)_\w+)\(")


@pytest.mark.parametrize("numero", sorted(ETAPAS), ids=[ETAPAS[n].arquivo[:-6] for n in sorted(ETAPAS)])
def test_guide_numbers_come_from_the_notebook(numero):
    # as respostas das previsões não ficam gravadas no notebook (aparecem depois da previsão): valem as da lição
    caminho = tn.PASTA / ETAPAS[numero].arquivo
    modulo = tn.modulo_da_licao(ETAPAS[numero])
    previsoes = [getattr(modulo, nome).exercicio for nome in re.findall(r"licao\.(prever_\w+)\(", caminho.read_text(encoding="utf-8"))]
    extra = "\n".join(p.revelar + " " + " ".join(p.pistas_da_resposta()) for p in previsoes)
    faltam = numeros_do_guia_fora_do_notebook(SECOES[numero], caminho, extra)
    assert not faltam, f"o guia cita números que o notebook {ETAPAS[numero].arquivo} não mostra: {faltam}"


@pytest.mark.parametrize("numero", sorted(ETAPAS), ids=[ETAPAS[n].arquivo[:-6] for n in sorted(ETAPAS)])
def test_guide_typical_mistakes_are_exactly_what_each_grader_names(numero):
    etapa = ETAPAS[numero]
    modulo = tn.modulo_da_licao(etapa)
    checks = {nome: f for nome, f in vars(modulo).items()
              if nome.startswith(("check_", "prever_")) and hasattr(f, "exercicio")}
    no_guia = {m.group(1): (m.group(2), m.group(3).split(" · ")) for m in LINHA_DE_ERROS.finditer(SECOES[numero])}
    usados = set(CORRETOR.findall((tn.PASTA / etapa.arquivo).read_text(encoding="utf-8")))
    for nome in sorted(usados & set(checks)):
        ex = checks[nome].exercicio
        assert nome in no_guia, f"o guia (seção {numero}) não lista os erros típicos de {nome}"
        titulo, erros = no_guia[nome]
        assert titulo == ex.nome, (nome, titulo, ex.nome)
        assert erros == ex.nomes_dos_erros(), f"{nome}: guia {erros} ≠ corretor {ex.nomes_dos_erros()}"
    assert set(no_guia) <= usados, f"o guia lista corretores que o notebook não usa: {set(no_guia) - usados}"


@pytest.mark.parametrize("caminho", sorted(tn.PASTA.glob("*.ipynb")), ids=lambda p: p.stem)
def test_prose_uses_the_decimal_comma(caminho):
    achados = decimais_com_ponto(caminho)
    assert not achados, "na prosa, vírgula decimal (código e matemática ficam com ponto):\n" + "\n".join(achados)


def test_seed_coverage_table_points_at_sections_that_exist():
    tabela = GUIA.split("## Cobertura dos textos-base", 1)[1].split("\n---\n", 1)[0]
    linhas = [ln for ln in tabela.splitlines() if re.match(r"\| T[123] \|", ln)]
    assert len(linhas) >= 40
    secoes = {}
    for e in tn.TRILHA:
        texto = (tn.PASTA / e.arquivo).read_text(encoding="utf-8")
        secoes[e.arquivo[:2]] = set(re.findall(r'"## (\d+)\. ', texto))
    for linha in linhas:
        onde = linha.rstrip(" |").rsplit("|", 1)[1]
        refs = re.findall(r"(\d\d) §(\d+)", onde)
        assert refs, linha
        for nb, sec in refs:
            assert sec in secoes[nb], f"{linha}: o notebook {nb} não tem a seção {sec}"


def test_overview_times_match_each_notebook_section():
    """A tabela da visão geral e o **Tempo:** da seção de cada notebook dizem o mesmo."""
    tabela = dict(re.findall(r"^\| (\d\d) · [^|]+\| (\d+) min \|", GUIA, flags=re.M))
    assert sorted(tabela) == sorted(ETAPAS)
    for numero, minutos in tabela.items():
        secao = re.search(r"^\*\*Tempo:\*\* (\d+) minutos", SECOES[numero], flags=re.M)
        assert secao, f"a seção {numero} do guia não diz o tempo"
        assert secao.group(1) == minutos, f"{numero}: {minutos} min na visão geral, {secao.group(1)} na seção"
