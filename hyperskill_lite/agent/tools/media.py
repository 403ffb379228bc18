"""Images and audio for the agent: inspect_file_as_image and inspect_file_as_audio.

- An image goes to a model's image input as a data URL (an OpenAI ``image_url`` content
  part) with the agent's question (or a request for a detailed description): the run's
  own model, or `vision_model` (on the run's server, or at `vision_base_url`).
- Audio goes to ``POST /audio/transcriptions`` (OpenAI's wire format; vLLM serves Whisper
  models there) of the run's server or `audio_base_url`, with `audio_model` (default
  "whisper-1"); a question is then answered by the run's model from the transcript.

This follows the anchor harness's ``inspect_file_as_image`` (a data URL to a vision
model) and ``inspect_file_as_audio`` (Whisper transcription, then the model). A server
without the capability (a text-only model refusing image parts, no transcription route)
gives a `MediaError` whose one line says what to serve or pass; the toolbox hands it to
the agent as a tool error and the episode goes on. Model tokens spent here are counted
under the ops ``tool:inspect_file_as_image`` and ``tool:inspect_file_as_audio``.

Not here: text documents (files.py), which files may be read (files.py `FileAccess`).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.prompts import AUDIO_QUESTION, IMAGE_QUESTION
from hyperskill_lite.errors import LLMError, LLMRequestError
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.llm.replies import strip_thinking
from hyperskill_lite.llm.text import fill

__all__ = ["MediaTools", "MediaError", "IMAGE_MIME", "AUDIO_MIME", "OP_IMAGE", "OP_AUDIO",
           "data_url"]

OP_IMAGE, OP_AUDIO = "tool:inspect_file_as_image", "tool:inspect_file_as_audio"
IMAGE_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
              ".gif": "image/gif", ".bmp": "image/bmp", ".webp": "image/webp"}
AUDIO_MIME = {".mp3": "audio/mpeg", ".mpga": "audio/mpeg", ".mpeg": "audio/mpeg",
              ".m4a": "audio/mp4", ".wav": "audio/wav", ".ogg": "audio/ogg",
              ".flac": "audio/flac", ".webm": "audio/webm"}
TRANSCRIPT_CHARS = 60_000


class MediaError(RuntimeError):
    """An image or audio file could not be read; one line saying why and what to do."""


def data_url(mime: str, data: bytes) -> str:
    """A ``data:`` URL of `data`.

    >>> data_url("image/png", b"abc")
    'data:image/png;base64,YWJj'
    """
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _one_line(text: str, n: int = 200) -> str:
    return " ".join(str(text).split())[:n]


class MediaTools:
    """The model calls behind the two tools (see the module docstring).

    Parameters
    ----------
    llm
        The run's `PromptedLLM` (its usage counts every token spent here).
    vision_model, vision_base_url
        Who reads images (default: the run's model and server).
    audio_model, audio_base_url
        Who transcribes audio (default: "whisper-1" on the run's server).
    """

    def __init__(self, llm: Any, *, vision_model: str | None = None,
                 vision_base_url: str | None = None, audio_model: str | None = None,
                 audio_base_url: str | None = None) -> None:
        self.llm = llm
        self.vision_model, self.vision_base_url = vision_model, vision_base_url
        self.audio_model, self.audio_base_url = audio_model, audio_base_url
        self._vision: Any = None

    # -- images ------------------------------------------------------------------
    def _vision_llm(self) -> Any:
        if self.vision_model is None and self.vision_base_url is None:
            return self.llm
        if self._vision is None:
            kw = dict(model=self.vision_model or self.llm.model, timeout=self.llm.timeout,
                      max_retries=min(2, self.llm.max_retries), structured="off",
                      temperature=self.llm.temperature)
            if self.vision_base_url:  # its key: OPENAI_API_KEY, or none for a local server
                self._vision = PromptedLLM(self.vision_base_url, **kw)
            else:
                self._vision = PromptedLLM(self.llm.base_url, client=self.llm.client, **kw)
        return self._vision

    def image(self, name: str, data: bytes, question: str | None = None) -> str:
        """The model's answer about an image (or its description)."""
        mime = IMAGE_MIME.get(Path(name).suffix.lower())
        if mime is None:
            raise MediaError(f"{name} is not an image this tool reads "
                             f"({', '.join(sorted(IMAGE_MIME))})")
        asked = question.strip() if question and question.strip() else IMAGE_QUESTION
        messages = [{"role": "user", "content": [
            {"type": "text", "text": asked},
            {"type": "image_url", "image_url": {"url": data_url(mime, data)}},
        ]}]
        vision = self._vision_llm()
        who = f"model {vision.model!r}"
        try:
            reply = vision.chat(messages, op=OP_IMAGE)
        except LLMRequestError as e:
            detail = e.detail.split("): ", 1)[-1] if "refused the request" in e.detail else e.detail
            raise MediaError(
                f"the {who} did not take the image (HTTP {e.status}: {_one_line(detail)}); "
                "it has no image input: serve a vision model or pass --vision-model") from None
        except LLMError as e:
            raise MediaError(f"the {who} could not be asked about the image "
                             f"({_one_line(e.detail)})") from None
        if vision is not self.llm:  # its tokens count in the run's usage too
            self.llm.usage.add(OP_IMAGE, int(reply.usage.get("prompt_tokens", 0)),
                               int(reply.usage.get("completion_tokens", 0)))
        answer = strip_thinking(reply.content).strip()
        if not answer:
            raise MediaError(f"the {who} returned an empty answer about the image")
        return answer

    # -- audio -------------------------------------------------------------------
    def _audio_client(self) -> tuple[Any, str]:
        import openai

        if self.audio_base_url:
            client = openai.OpenAI(base_url=self.audio_base_url,
                                   api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY",
                                   timeout=self.llm.timeout, max_retries=2)
            return client, self.audio_base_url
        return self.llm.client.with_options(max_retries=2), self.llm.base_url or "the API"

    def transcribe(self, name: str, data: bytes) -> str:
        """The transcript of an audio file."""
        import openai

        mime = AUDIO_MIME.get(Path(name).suffix.lower())
        if mime is None:
            raise MediaError(f"{name} is not an audio file this tool reads "
                             f"({', '.join(sorted(AUDIO_MIME))})")
        client, where = self._audio_client()
        model = self.audio_model or "whisper-1"
        hint = ("serve a speech-to-text model (vLLM serves Whisper) and pass --audio-base-url "
                "and --audio-model")
        try:
            out = client.audio.transcriptions.create(model=model, file=(name, data, mime),
                                                     response_format="json")
        except openai.NotFoundError:
            raise MediaError(f"the server at {where} has no /audio/transcriptions for model "
                             f"{model!r} (HTTP 404); {hint}") from None
        except openai.APIStatusError as e:
            raise MediaError(f"transcription at {where} failed (HTTP {e.status_code}: "
                             f"{_one_line(getattr(e, 'message', e))}); {hint}") from None
        except (openai.APIConnectionError, openai.APITimeoutError) as e:
            raise MediaError(f"could not reach {where} to transcribe ({_one_line(e)})") from None
        text = getattr(out, "text", None) if not isinstance(out, str) else out
        if not isinstance(text, str):
            raise MediaError(f"the transcription reply from {where} has no text")
        return text.strip()

    def audio(self, name: str, data: bytes, question: str | None = None) -> str:
        """The transcript, and the model's answer to `question` from it."""
        transcript = self.transcribe(name, data)
        shown = transcript if len(transcript) <= 4000 else transcript[:4000] + " [...]"
        if not question or not question.strip():
            return f"Transcript of {name}:\n{transcript[:TRANSCRIPT_CHARS]}"
        prompt = fill(AUDIO_QUESTION, name=name, transcript=transcript[:TRANSCRIPT_CHARS],
                      question=question.strip())
        try:
            reply = self.llm.chat([{"role": "user", "content": prompt}], op=OP_AUDIO)
        except LLMError as e:
            return (f"Transcript of {name}:\n{shown}\n\n(the model could not answer the "
                    f"question: {_one_line(e.detail)})")
        return f"Answer: {strip_thinking(reply.content).strip()}\n\nTranscript of {name}:\n{shown}"
