"""Notebook 09_atencao_aprendida: o modelo treinado que vem no repositório, em ``data/`` (sem pickle).

Dois arquivos, escritos por ``python -m tools.treinar``:

- ``data/modelo_concordancia.npz`` — os parâmetros, um array float64 por nome (um ``.npz`` simples,
  lido com ``allow_pickle=False``; os bytes não dependem da hora em que foi escrito);
- ``data/modelo_concordancia.json`` — a receita (semente e hiperparâmetros), os passos, as medidas
  feitas na hora (acurácias, pesos por cabeça), a impressão digital SHA-256 dos parâmetros e a dos
  primeiros passos do treino (para conferir que a receita reproduz o modelo);
- ``data/sementes_concordancia.json`` — a tabela das sementes: a mesma receita treinada com 5 sementes e
  medida nas frases de avaliação (:func:`helpers.licoes.aprendida.analise.medir_semente`), com a impressão
  digital dos parâmetros finais de cada uma.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import zipfile
from pathlib import Path

import numpy as np

from ...data import PASTA_DADOS
from .rede import ModeloConcordancia, Receita

__all__ = ["NOME_MODELO", "NOME_SEMENTES", "ambiente", "carregar_modelo", "impressao_digital", "ler_metadados",
           "ler_sementes", "salvar_modelo", "salvar_sementes"]

#: o nome dos dois arquivos em ``data/`` (``.npz`` e ``.json``)
NOME_MODELO = "modelo_concordancia"
#: a tabela das sementes: a mesma receita treinada com 5 sementes, cada uma medida (``data/{NOME_SEMENTES}.json``)
NOME_SEMENTES = "sementes_concordancia"
FORMATO = 1


def impressao_digital(parametros: dict[str, np.ndarray]) -> str:
    """SHA-256 dos parâmetros (nomes em ordem, forma e bytes float64 little-endian): iguais bit a bit
    ⇔ mesma impressão digital."""
    h = hashlib.sha256()
    for nome in sorted(parametros):
        a = np.ascontiguousarray(parametros[nome], dtype="<f8")
        h.update(f"{nome}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def ambiente() -> dict[str, str]:
    """O que pode mudar os bits de um treino: versões do numpy e do Python, o BLAS e a arquitetura."""
    info: dict[str, str] = {"numpy": np.__version__, "python": platform.python_version(), "maquina": platform.machine()}
    try:
        from threadpoolctl import threadpool_info

        blas = [d for d in threadpool_info() if d.get("user_api") == "blas"]
        if blas:
            b = blas[0]
            info["blas"] = f"{b.get('internal_api')} {b.get('version')} {b.get('architecture')}"
    except ImportError:  # pragma: no cover - depende do ambiente
        pass
    return info


def _caminhos(pasta: Path | str | None) -> tuple[Path, Path]:
    base = Path(PASTA_DADOS if pasta is None else pasta)
    return base / f"{NOME_MODELO}.npz", base / f"{NOME_MODELO}.json"


def salvar_modelo(modelo: ModeloConcordancia, metadados: dict, pasta: Path | str | None = None) -> tuple[Path, Path]:
    """Grava ``modelo`` em ``pasta`` (padrão ``data/``): o ``.npz`` e o ``.json`` com a receita,
    ``metadados`` e a impressão digital. Devolve os dois caminhos."""
    npz, js = _caminhos(pasta)
    npz.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(npz, "w", compression=zipfile.ZIP_STORED) as z:
        for nome in sorted(modelo.parametros):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(modelo.parametros[nome], dtype="<f8"),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(f"{nome}.npy", date_time=(1980, 1, 1, 0, 0, 0))  # bytes sem data
            z.writestr(info, buf.getvalue())
    tudo = {
        "formato": FORMATO,
        "descricao": "Modelo de concordância do notebook 09_atencao_aprendida (python -m tools.treinar).",
        "receita": modelo.receita.como_dict(),
        **metadados,
        "sha256_parametros": impressao_digital(modelo.parametros),
    }
    js.write_text(json.dumps(tudo, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return npz, js


def ler_metadados(pasta: Path | str | None = None) -> dict:
    """O JSON que acompanha o modelo: receita, passos, medidas e impressões digitais."""
    _, js = _caminhos(pasta)
    try:
        return json.loads(js.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"não encontrei {js.name} em {js.parent}; ele vem com o repositório "
            "(ou gere de novo com `python -m tools.treinar`)."
        ) from None


def carregar_modelo(pasta: Path | str | None = None) -> ModeloConcordancia:
    """O modelo treinado que vem com o repositório (``data/modelo_concordancia.npz``).

    Confere a impressão digital dos parâmetros contra o JSON: se os dois arquivos não combinam
    (um foi trocado ou corrompido), levanta ``ValueError``.
    """
    npz, _ = _caminhos(pasta)
    meta = ler_metadados(pasta)
    if meta.get("formato") != FORMATO:
        raise ValueError(f"{NOME_MODELO}.json tem formato {meta.get('formato')!r}; esperava {FORMATO}.")
    receita = Receita(**meta["receita"])
    try:
        with np.load(npz, allow_pickle=False) as dados:
            parametros = {nome: dados[nome] for nome in dados.files}
    except FileNotFoundError:
        raise ValueError(f"não encontrei {npz.name} em {npz.parent}; gere com `python -m tools.treinar`.") from None
    modelo = ModeloConcordancia(parametros, receita)
    if impressao_digital(modelo.parametros) != meta.get("sha256_parametros"):
        raise ValueError(
            f"os parâmetros de {npz.name} não batem com a impressão digital de {NOME_MODELO}.json: os dois "
            "arquivos não são do mesmo treino. Gere os dois de novo com `python -m tools.treinar`."
        )
    return modelo


def salvar_sementes(tabela: dict, pasta: Path | str | None = None) -> Path:
    """Grava a tabela das sementes (``{"receita", "avaliacao", "linhas", "ambiente"}``) em ``pasta``."""
    js = Path(PASTA_DADOS if pasta is None else pasta) / f"{NOME_SEMENTES}.json"
    js.parent.mkdir(parents=True, exist_ok=True)
    js.write_text(json.dumps({"formato": FORMATO, **tabela}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return js


def ler_sementes(pasta: Path | str | None = None) -> dict:
    """A tabela das sementes que vem com o repositório: uma linha por semente (``tabela["linhas"]``)."""
    js = Path(PASTA_DADOS if pasta is None else pasta) / f"{NOME_SEMENTES}.json"
    try:
        return json.loads(js.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"não encontrei {js.name} em {js.parent}; gere com `python -m tools.treinar`.") from None
