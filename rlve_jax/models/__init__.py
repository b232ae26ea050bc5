"""The policy: the Qwen decoder, its attention implementations, HF weight conversion, the tiny tokenizer."""
