/** htm bound to preact's `h`: tagged-template views without a JSX transform. */
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
