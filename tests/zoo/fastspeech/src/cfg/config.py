"""Kiln's stand-in for the zoo's src/cfg/config.py, which reads default_config.yaml and the command line at import:
the fields the network reads, set small by the driver."""

from types import SimpleNamespace

config = SimpleNamespace(
    num_mels=4, vocab_size=20, max_seq_len=40, encoder_dim=8, encoder_n_layer=1, encoder_head=2,
    encoder_conv1d_filter_size=16, decoder_dim=8, decoder_n_layer=1, decoder_head=2, decoder_conv1d_filter_size=16,
    fft_conv1d_kernel=[3, 1], fft_conv1d_padding=[1, 0], duration_predictor_filter_size=8,
    duration_predictor_kernel_size=3, dropout=0.1, batch_size=2, mel_max_length=10, character_max_length=5,
    lr_scale=1, n_warm_up_step=2, epochs=1,
)  # fmt: skip
