import MenuIcon from '@mui/icons-material/Menu';
import IconButton from '@mui/material/IconButton';

/** Opens the chat list drawer on narrow screens (where no chat header has one). */
export default function ChatListButton({ onClick }: { onClick: () => void }) {
  return (
    <IconButton aria-label="Open chat list" onClick={onClick} edge="start">
      <MenuIcon />
    </IconButton>
  );
}
