import type { ChartConfiguration } from 'chart.js';
import type { Theme } from '../../shared/preferences';

/**
 * The charts' colours per theme. Chart.js draws on a canvas, which CSS variables do not reach:
 * its text, grid lines and series colours are options, so each theme names its own here —
 * on the dark theme's surfaces the light palette's dark greys and deep blues vanish.
 */
export interface ChartPalette {
  text: string;
  grid: string;
  states: Record<string, string>;
  /** Success rate, p50 and p95 lines. */
  line: { rate: string; p50: string; p95: string };
}

const LIGHT: ChartPalette = {
  text: '#5d6678',
  grid: 'rgba(0, 0, 0, 0.1)',
  states: {
    SUCCEEDED: '#2e7d32',
    FAILED: '#c62828',
    TIMED_OUT: '#ef6c00',
    CANCELLED: '#757575',
    SKIPPED: '#9e9e9e',
    RETRY_WAIT: '#f9a825',
    ACCEPTED: '#1565c0',
    DISPATCHED: '#42a5f5',
    CLAIMED: '#90caf9',
    PENDING: '#cfd8dc',
    APPROVAL_WAIT: '#8e24aa',
    HELD: '#b39ddb',
    COALESCING: '#80cbc4',
  },
  line: { rate: '#2e7d32', p50: '#1565c0', p95: '#ef6c00' },
};

const DARK: ChartPalette = {
  text: '#b0bcc8',
  grid: 'rgba(255, 255, 255, 0.12)',
  states: {
    SUCCEEDED: '#66bb6a',
    FAILED: '#ef5350',
    TIMED_OUT: '#ffa726',
    CANCELLED: '#9aa5b8',
    SKIPPED: '#6f7b8c',
    RETRY_WAIT: '#ffd54f',
    ACCEPTED: '#64b5f6',
    DISPATCHED: '#90caf9',
    CLAIMED: '#bbdefb',
    PENDING: '#546e7a',
    APPROVAL_WAIT: '#ce93d8',
    HELD: '#7e57c2',
    COALESCING: '#26a69a',
  },
  line: { rate: '#66bb6a', p50: '#64b5f6', p95: '#ffa726' },
};

export function chartPalette(theme: Theme): ChartPalette {
  return theme === 'dark' ? DARK : LIGHT;
}

/** `options` with the palette's text and grid colours on the legend and on every axis it names. */
export function themed(options: NonNullable<ChartConfiguration['options']>, palette: ChartPalette): ChartConfiguration['options'] {
  const scales = Object.fromEntries(
    Object.entries((options as { scales?: Record<string, Record<string, unknown>> }).scales ?? {}).map(([axis, scale]) => [
      axis,
      {
        ...scale,
        ticks: { ...(scale.ticks as object | undefined), color: palette.text },
        grid: { ...(scale.grid as object | undefined), color: palette.grid },
        title: scale.title ? { ...(scale.title as object), color: palette.text } : undefined,
      },
    ]),
  );
  const plugins = (options.plugins ?? {}) as { legend?: { labels?: object } };
  return {
    ...options,
    color: palette.text,
    scales,
    plugins: { ...plugins, legend: { ...plugins.legend, labels: { ...plugins.legend?.labels, color: palette.text } } },
  } as ChartConfiguration['options'];
}
