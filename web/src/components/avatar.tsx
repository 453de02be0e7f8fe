export function Avatar({ src, name, size = 32 }: { src?: string; name: string; size?: number }) {
  return <img class="avatar" src={src || '/static/default-avatar.svg'} alt={`${name}'s avatar`} width={size} height={size} loading="lazy" decoding="async" />;
}
