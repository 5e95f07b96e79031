"""qwirkle_env/render: text, images, SVG, animations and the human window."""
